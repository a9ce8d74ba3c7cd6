import type { DeliveryMode } from './delivery-mode';
import type { ListenerDefinition } from './listener-definition';

/** How a listener receives from a broker over HTTP: its own `delivery`, else the module's. */
export function deliveryOf(listener: Pick<ListenerDefinition, 'delivery'>, options: { delivery: DeliveryMode }): DeliveryMode {
  return listener.delivery ?? options.delivery;
}

/** Some listener is pushed to (or, with none, the module's delivery is push): the application takes pushes. */
export function takesPushes(listeners: readonly ListenerDefinition[], options: { delivery: DeliveryMode }): boolean {
  if (listeners.length === 0) return options.delivery === 'push';
  return listeners.some((listener) => deliveryOf(listener, options) === 'push');
}

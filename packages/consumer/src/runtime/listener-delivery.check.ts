import { InvalidListenerError } from '../errors/invalid-listener.error';
import type { ResolvedConsumerOptions } from '../config/resolved-consumer-options';
import type { ListenerDefinition } from '../listener/listener-definition';
import { deliveryOf } from '../listener/listener-delivery';

/**
 * Checks at bootstrap that what each listener's delivery needs is set, and that the module sets nothing no listener
 * uses, naming the listener and the fix.
 * @param inProcess the listeners receive in process from this application's broker (no HTTP delivery at all)
 * @throws InvalidListenerError
 */
export function checkListenerDelivery(
  listeners: readonly ListenerDefinition[],
  options: Pick<ResolvedConsumerOptions, 'delivery' | 'registrations' | 'broker' | 'given'>,
  inProcess: boolean,
): void {
  const { given } = options;
  if (inProcess) {
    const declared = listeners.find((listener) => listener.delivery !== undefined);
    if (declared !== undefined) {
      throw new InvalidListenerError(
        `${declared.where}: delivery is "${declared.delivery}" but this application runs the broker and the module sets no ` +
          `broker, so its listeners receive in process; remove delivery, or set broker to receive over HTTP`,
      );
    }
    return;
  }
  if (listeners.length === 0) return;
  const pulling = listeners.filter((listener) => deliveryOf(listener, options) === 'pull');
  const pushing = listeners.length - pulling.length;
  if (pulling.length > 0 && options.broker === undefined) {
    throw new InvalidListenerError(
      `${pulling[0].where}: delivery is "pull" but broker is not set; set broker to the URL the messages are fetched from`,
    );
  }
  if (pulling.length > 0 && options.registrations.pull === undefined && given.autoRegister !== false) {
    throw new InvalidListenerError(
      `${pulling[0].where}: delivery is "pull" but app is not set: it prefixes every consumer id so that two ` +
        'applications never share a dispatcher by accident; set app, or autoRegister: false',
    );
  }
  if (pulling.length === 0 && given.pull !== undefined) {
    throw new InvalidListenerError(`pull is set but no listener pulls; set delivery: 'pull' on the module or on a listener to use it`);
  }
  if (pushing === 0 && given.advertisedUrl !== undefined) {
    throw new InvalidListenerError(
      'advertisedUrl is set but every listener pulls (delivery: "pull"): the broker never connects to this application; remove advertisedUrl',
    );
  }
}

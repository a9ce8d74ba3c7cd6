import type { TransportSubscriber } from '@mmmq/core';
import type { BrokerPushSubscriber } from '../http/broker-push-subscriber';
import type { ListenerDefinition } from '../listener/listener-definition';
import { deliveryOf } from '../listener/listener-delivery';
import type { ResolvedConsumerOptions } from '../config/resolved-consumer-options';
import type { BrokerPullSubscriber } from '../pull/broker-pull-subscriber';
import type { SubscribeAllOptions } from '../transport/transport-consumer';

/** The MMMQ broker's name as a transport, in logs and error messages. */
export const MMMQ_TRANSPORT_NAME = 'mmmq';

/**
 * How the listeners subscribe on the MMMQ broker when no `transport` is set: each on the push or pull subscriber as
 * its `delivery` (else the module's) says; in the background unless `registration.failFast` (the application starts
 * while the broker is down); reported to the health indicator unless nothing registers them (`autoRegister: false`).
 */
export function brokerSubscription(
  options: Pick<ResolvedConsumerOptions, 'delivery' | 'registrations'>,
  listeners: readonly ListenerDefinition[],
  push: BrokerPushSubscriber,
  pull: BrokerPullSubscriber,
): { name: string; subscriberOf: (listener: ListenerDefinition) => TransportSubscriber } & SubscribeAllOptions {
  const modes = new Set(listeners.map((listener) => deliveryOf(listener, options)));
  const registrations = [...modes].flatMap((mode) => options.registrations[mode] ?? []);
  return {
    name: MMMQ_TRANSPORT_NAME,
    subscriberOf: (listener) => (deliveryOf(listener, options) === 'pull' ? pull : push),
    background: registrations.some((registration) => !registration.failFast),
    reported: registrations.length > 0,
  };
}

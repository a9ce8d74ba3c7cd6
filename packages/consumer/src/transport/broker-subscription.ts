import type { TransportSubscriber } from '@mmmq/core';
import type { BrokerPushSubscriber } from '../http/broker-push-subscriber';
import type { ResolvedConsumerOptions } from '../mmmq-consumer-options.resolver';
import type { BrokerPullSubscriber } from '../pull/broker-pull-subscriber';
import type { SubscribeAllOptions } from './transport-consumer';

/** The MMMQ broker's name as a transport, in logs and error messages. */
export const MMMQ_TRANSPORT_NAME = 'mmmq';

/**
 * How the listeners subscribe on the MMMQ broker when no `transport` is set: its push or pull subscriber as `delivery`
 * says; in the background unless `registration.failFast` (the application starts while the broker is down); reported
 * to the health indicator unless nothing registers (`autoRegister: false`).
 */
export function brokerSubscription(
  options: Pick<ResolvedConsumerOptions, 'delivery' | 'registration'>,
  push: BrokerPushSubscriber,
  pull: BrokerPullSubscriber,
): { name: string; subscriber: TransportSubscriber } & SubscribeAllOptions {
  const { registration } = options;
  return {
    name: MMMQ_TRANSPORT_NAME,
    subscriber: options.delivery === 'pull' ? pull : push,
    background: registration !== undefined && !registration.failFast,
    reported: registration !== undefined,
  };
}

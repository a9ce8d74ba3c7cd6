import type { PublishedMessage, PublishRequest } from '../wire';
import type { TransportDelivery, TransportListener, TransportSubscriber } from './transport';

/**
 * A subscriber that offers `context.transaction()`: a handler's outputs published together with its delivery's
 * settlement. The in-memory broker of tests offers it (it publishes the outputs, and the handler's ACK settles the
 * delivery right after: nothing can fail in between); a transport that cannot tie the two together does not, and
 * the consumer's `context.transaction()` then fails naming the transport.
 */
export interface TransactionalSubscriber extends TransportSubscriber {
  /** Publishes `outputs` as one batch for `delivery`, which the handler's ACK then settles. */
  commitTransaction(
    listener: TransportListener,
    delivery: TransportDelivery,
    outputs: readonly PublishRequest[],
  ): Promise<PublishedMessage[]>;
}

export function isTransactionalSubscriber(subscriber: TransportSubscriber): subscriber is TransactionalSubscriber {
  return typeof (subscriber as Partial<TransactionalSubscriber>).commitTransaction === 'function';
}

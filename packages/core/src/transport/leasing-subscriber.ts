import type { ConsumerAcknowledgement } from '../acknowledgement';
import type { TransportDelivery, TransportListener, TransportSubscriber } from './transport';

/**
 * A subscriber whose deliveries are held by a lease until settled (the MMMQ broker's): a handler extends it with
 * `context.inProgress()`, and may have its decision reach the transport before it returns (`settleNow`). A transport
 * without leases does not offer it, and the consumer's `context.inProgress()` then fails naming the transport.
 */
export interface LeasingSubscriber extends TransportSubscriber {
  /**
   * Why `delivery` has no lease to extend, nor to commit a transaction against (e.g. the broker sent none, or settled
   * it when it sent it); undefined when it has one.
   */
  leaseUnavailable(listener: TransportListener, delivery: TransportDelivery): string | undefined;
  /** Extends the lease of `delivery`; rejects when it is no longer held (the message is delivered again). */
  extendLease(listener: TransportListener, delivery: TransportDelivery): Promise<void>;
  /**
   * Settles `delivery` now, resolving once the transport holds the decision for good; the acknowledgement its handler
   * then resolves with changes nothing. The consumer uses it for ack mode `manual`, so `await context.ack()` means
   * settled. Absent: a decision travels with the handler's acknowledgement.
   */
  settleNow?(listener: TransportListener, delivery: TransportDelivery, acknowledgement: ConsumerAcknowledgement): Promise<void>;
}

export function isLeasingSubscriber(subscriber: TransportSubscriber): subscriber is LeasingSubscriber {
  return typeof (subscriber as Partial<LeasingSubscriber>).extendLease === 'function';
}

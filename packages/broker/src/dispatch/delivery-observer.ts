/**
 * Told about pushes, while metrics are on (`metrics.enabled`); absent otherwise, and then the push path does nothing
 * more than before.
 */
export interface DeliveryObserver {
  /** A push (one message, or a batch) was answered by the consumer, `seconds` after it was sent. */
  pushAnswered(topic: string, consumerId: string, seconds: number): void;
  /** A push member starts (`+1`) or ends (`-1`) waiting out its backoff after a failed push. */
  backingOff(topic: string, consumerId: string, change: 1 | -1): void;
}

/** Injection token of the optional {@link DeliveryObserver}. */
export const DELIVERY_OBSERVER = Symbol('DELIVERY_OBSERVER');

/**
 * Bytes of messages one subscription holds in memory at most: read ahead and waiting, leased (pushes and fetches in
 * flight, in-process deliveries), delayed, waiting for their ordering key. 16 MiB: 16 pushes of the largest batch
 * (`PUSH_BATCH_MAX_BYTES`), or 16,000 messages of 1 KiB, more than a window of 10,000 needs (docs/delivery.md#memory).
 */
export const DEFAULT_SUBSCRIPTION_WINDOW_BYTES = 16 * 1024 * 1024;
/** Bytes of messages all subscriptions together hold in memory at most (the windows above, summed). */
export const DEFAULT_WINDOW_BYTES = 128 * 1024 * 1024;

/** What a ledger tells of the message bytes it holds. */
export interface WindowBytes {
  /** `delta` bytes more (or fewer, negative) are held. */
  add(delta: number): void;
}

/**
 * The message bytes subscriptions hold in memory, each within its own bound and all within the broker's. Reading
 * ahead stops where either is reached, but a subscription holding nothing may always read one message, whatever its
 * size and whatever the others hold: a subscription is never stalled by the memory of others (see LogReader).
 */
export class WindowBudget implements WindowBytes {
  private total = 0;

  constructor(
    readonly maxBytes: number = DEFAULT_WINDOW_BYTES,
    readonly subscriptionMaxBytes: number = DEFAULT_SUBSCRIPTION_WINDOW_BYTES,
  ) {}

  /** Bytes held by all subscriptions together. */
  get bytes(): number {
    return this.total;
  }

  add(delta: number): void {
    this.total += delta;
  }

  /**
   * Bytes a subscription holding `held` may still read: the smaller of what its own bound and the broker's leave;
   * at most 0. A subscription holding nothing gets at least one message (see LogReader).
   */
  room(held: number): number {
    return Math.max(0, Math.min(this.subscriptionMaxBytes - held, this.maxBytes - this.total));
  }
}

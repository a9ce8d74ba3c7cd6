/** The counters of a subscription at one moment, apart from the live ones. */
export type SubscriptionStatsSnapshot = Omit<SubscriptionStats, 'recordFailure' | 'recordSeek' | 'snapshot'>;

/** Counters of one subscription, shown by `GET /mmmq/subscriptions`. */
export class SubscriptionStats {
  /** Messages settled by an ACK (or on send, for fetches that ask so). */
  delivered = 0;
  /** Deliveries of a message that may have been delivered before. */
  redelivered = 0;
  /** Leases that ended without a settlement (not message expiry: see {@link messagesExpired}). */
  expired = 0;
  /** Messages past their `expiresAt` when they would have been handed out: dead-lettered (`EXPIRED`) or dropped. */
  messagesExpired = 0;
  nacked = 0;
  deadLettered = 0;
  corruptSkipped = 0;
  /** Messages the dispatcher's selector did not select: skipped, settled for this subscription as if ACKed. */
  filtered = 0;
  /**
   * Messages given up for the dispatcher's `maxBacklog` (`dropOldest`: settled without delivery; `deadLetter`: also
   * counted in `deadLettered`).
   */
  backlogDropped = 0;
  /**
   * Messages deleted by retention (`whenNeeded: delete`) or a topic limit (`overflow: dropOldest`) before this
   * subscription consumed them: it resumed at the oldest retained offset.
   */
  retentionSkipped = 0;
  failures = 0;
  /** Pushes the consumer answered with 401 (it refused their signature). */
  unauthorized = 0;
  /** Messages settled by a transaction, together with its outputs (also counted in `delivered`). */
  transacted = 0;
  lastError?: string;
  lastErrorAt?: string;
  /** Seeks that moved the subscription (docs/delivery.md, "Replay and seek"), and the last one: when, from and to which cursor. */
  seeks = 0;
  lastSeek?: { at: string; from: number; to: number };

  recordFailure(message: string): void {
    this.failures++;
    this.lastError = message;
    this.lastErrorAt = new Date().toISOString();
  }

  recordSeek(from: number, to: number): void {
    this.seeks++;
    this.lastSeek = { at: new Date().toISOString(), from, to };
  }

  /** A copy for whoever asks (a view, a host application), so that nobody outside changes the counters. */
  snapshot(): SubscriptionStatsSnapshot {
    return { ...this };
  }
}

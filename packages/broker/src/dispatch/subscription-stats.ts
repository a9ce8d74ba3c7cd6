/** Counters of one subscription, shown by `GET /mmmq/subscriptions`. */
export class SubscriptionStats {
  delivered = 0;
  deadLettered = 0;
  corruptSkipped = 0;
  failures = 0;
  /** Pushes the consumer answered with 401 (it refused their signature). */
  unauthorized = 0;
  lastError?: string;
  lastErrorAt?: string;

  recordFailure(message: string): void {
    this.failures++;
    this.lastError = message;
    this.lastErrorAt = new Date().toISOString();
  }
}

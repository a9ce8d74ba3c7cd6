/** How a publication ended: `acked` by the broker, or `failed` (given up on, refused, or interrupted by close). */
export type ProduceOutcome = 'acked' | 'failed';

/**
 * Told about every publication (a message, or a batch) once it ends, and about each retry, while
 * `MmmqProducerMetricsModule` is imported (the only provider); without it nothing is measured.
 */
export interface ProduceObserver {
  /** `seconds`: from the first attempt to the outcome, retries and their waits included. */
  produced(topics: readonly string[], outcome: ProduceOutcome, seconds: number): void;
  retried(topics: readonly string[]): void;
  /** A published request ended; `seconds` from the `request()` call. */
  requested?(topic: string, outcome: RequestOutcome, seconds: number): void;
  /** A reply came for no waiting request (timed out, cancelled, answered already) and was dropped. */
  lateReply?(): void;
}

/**
 * How a published request ended: `answered` (the reply), `error` (an error reply), `timeout`, `cancelled` (the producer
 * closed), or `unavailable` (its reply could not be collected).
 */
export type RequestOutcome = 'answered' | 'error' | 'timeout' | 'cancelled' | 'unavailable';

/** Injection token of the optional {@link ProduceObserver}. */
export const PRODUCE_OBSERVER = Symbol('MMMQ_PRODUCE_OBSERVER');

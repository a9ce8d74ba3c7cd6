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
}

/** Injection token of the optional {@link ProduceObserver}. */
export const PRODUCE_OBSERVER = Symbol('MMMQ_PRODUCE_OBSERVER');

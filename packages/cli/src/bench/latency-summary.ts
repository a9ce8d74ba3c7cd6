/** Throughput and latency percentiles of one measured stream (publish, or publish-to-consume). */
export interface LatencySummary {
  count: number;
  /** Per second, over the run's wall-clock time. */
  throughput: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Summarises latencies (ms) measured over `elapsedMs`: nearest-rank percentiles, rounded to 0.01 ms. */
export function summarize(latenciesMs: readonly number[], elapsedMs: number): LatencySummary {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  const rank = (q: number) => (sorted.length === 0 ? 0 : round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]));
  return {
    count: sorted.length,
    throughput: elapsedMs > 0 ? Math.round((sorted.length * 1000) / elapsedMs) : 0,
    p50Ms: rank(0.5),
    p90Ms: rank(0.9),
    p99Ms: rank(0.99),
    maxMs: sorted.length === 0 ? 0 : round(sorted[sorted.length - 1]),
  };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

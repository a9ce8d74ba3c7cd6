/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function median(values: number[]): number {
  const finite = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (finite.length === 0) return NaN;
  const mid = finite.length >> 1;
  return finite.length % 2 ? finite[mid] : (finite[mid - 1] + finite[mid]) / 2;
}

export function minMax(values: number[]): [number, number] {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return [NaN, NaN];
  return [Math.min(...finite), Math.max(...finite)];
}

/** Latencies in milliseconds, preallocated so recording costs no allocation on the hot path. */
export class LatencyRecorder {
  private values: Float64Array;
  private count = 0;

  constructor(capacity: number) {
    this.values = new Float64Array(Math.max(16, capacity));
  }

  record(ms: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = ms;
  }

  get size(): number {
    return this.count;
  }

  summary(): { p50: number; p99: number; max: number } {
    const sorted = this.values.slice(0, this.count).sort();
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.length ? sorted[sorted.length - 1] : NaN };
  }
}

/**
 * The counters of the items without a series of their own, summed under `__other` so that the sum only grows: each
 * scrape adds what each aggregated item counted since the previous one. A plain sum of their current totals would
 * drop whenever an item got a series of its own or was deleted, which Prometheus reads as a counter reset.
 */
export class OtherCounters {
  /** One total per counter. */
  readonly totals: number[];
  private last = new Map<string, readonly number[]>();
  private next = new Map<string, readonly number[]>();

  constructor(counters: number) {
    this.totals = new Array<number>(counters).fill(0);
  }

  /** Adds what the aggregated item `key` counted since the last scrape (all of it the first time); `values` is copied. */
  add(key: string, values: readonly number[]): void {
    const previous = this.last.get(key);
    // Most items count nothing: remembering them would only make garbage (an unknown item counted 0).
    if (previous === undefined && values.every((value) => value === 0)) return;
    for (let i = 0; i < values.length; i++) this.totals[i] += Math.max(0, values[i] - (previous?.[i] ?? 0));
    this.next.set(key, [...values]);
  }

  /** Ends a scrape: items not added in it (deleted, or given a series) are forgotten. */
  endScrape(): void {
    this.last = this.next;
    this.next = new Map();
  }
}

import type { FsyncCounters, System } from './systems/system';

/** Why the report shows "n/a" for a system that does not count its fsyncs. */
export const NOT_COUNTED = 'the bench counts fsyncs only where the broker reports them (MMMQ)';

interface Reading {
  counters: FsyncCounters;
  /** performance.now() halfway through the request, when the broker read its counters (near enough). */
  at: number;
}

/**
 * Reads a broker's fsync counters at the start and the end of a measured phase and turns the difference
 * into per-second rates: `fsyncRate` (total) and `fsyncRateJournal` / `Flush` / `Other`, plus `fsyncs`
 * (the count). When the broker cannot tell, `unmeasured` says why.
 */
export class FsyncMeter {
  private before?: Reading;
  private after?: Reading;
  private why?: string;

  constructor(private readonly system: System) {}

  async start(): Promise<void> {
    this.before = await this.read();
  }

  async stop(): Promise<void> {
    if (this.before) this.after = await this.read();
  }

  private async read(): Promise<Reading | undefined> {
    if (!this.system.fsyncCounters) {
      this.why = NOT_COUNTED;
      return undefined;
    }
    const sent = performance.now();
    const counters = await this.system.fsyncCounters();
    if (typeof counters === 'string') {
      this.why = counters;
      return undefined;
    }
    return { counters, at: (sent + performance.now()) / 2 };
  }

  /** The rates, or why there are none. */
  result(): { metrics: Record<string, number>; unmeasured?: string } {
    const { before, after } = this;
    if (!before || !after) return { metrics: {}, unmeasured: this.why ?? 'the measured phase did not end' };
    const delta = after.counters.total - before.counters.total;
    // A broker restarted during the phase starts counting from zero again.
    if (delta < 0) return { metrics: {}, unmeasured: 'the broker restarted during the measured phase' };
    const seconds = (after.at - before.at) / 1000;
    const rate = (key: keyof FsyncCounters) => (after.counters[key] - before.counters[key]) / seconds;
    return {
      metrics: {
        fsyncs: delta,
        fsyncRate: rate('total'),
        fsyncRateJournal: rate('journal'),
        fsyncRateFlush: rate('flush'),
        fsyncRateOther: rate('other'),
      },
    };
  }
}

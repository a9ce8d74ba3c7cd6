/**
 * fsyncs off the commit path (the flush's, and the writeback behind a segment's writes) that may run at once. libuv's
 * thread pool has 4 threads by default; fsyncs queued there ahead of a journal commit's fsync delay its ACK, so two
 * are always left for the journal (and for reads).
 */
export const BACKGROUND_SYNCS_MAX = 2;

/** Runs background fsync work at most `max` at a time, in the order asked; the rest wait their turn. */
export class BackgroundSyncs {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly max = BACKGROUND_SYNCS_MAX) {}

  /** How many run now (for the tests). */
  get active(): number {
    return this.running;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      // The slot passes to the next in line as it is; it is freed only when nobody waits.
      if (next) next();
      else this.running--;
    }
  }

  /**
   * Runs `work` on every item, at most `max` at a time across the process: resolves once all succeeded; on the first
   * failure starts no more, waits for the ones running, then rejects with it.
   */
  async each<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
    let next = 0;
    let failure: { cause: unknown } | undefined;
    const lane = async () => {
      while (!failure && next < items.length) {
        const item = items[next++];
        await this.run(() => (failure ? Promise.resolve() : work(item))).catch((cause: unknown) => {
          failure ??= { cause };
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.max, items.length) }, lane));
    if (failure) throw failure.cause;
  }
}

/** The process's limit: every broker of the process shares libuv's one thread pool. */
export const backgroundSyncs = new BackgroundSyncs();

/**
 * Topics attached at once within one run: enough for their subscriptions' first checkpoint values to share journal
 * records, few enough that their file opens leave libuv's thread pool to the journal's fsyncs.
 */
export const ATTACH_LANES = 16;

interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Topics opened and waiting for their subscriptions, taken together: each run (which `schedule` starts, under the
 * container's lock) attaches every topic queued by then, {@link ATTACH_LANES} at a time. Attached one run per topic,
 * 1,000 topics created at once waited for 1,000 journal commits one after the other.
 */
export class AttachQueue<T> {
  private waiting: Array<Waiting<T>> = [];

  constructor(
    /** Starts `run` once nothing else holds the lock (dispatcher changes stay one at a time with runs). */
    private readonly schedule: (run: () => Promise<void>) => void,
    private readonly attach: (item: T) => Promise<void>,
  ) {}

  /** Resolves once `item` is attached (rejects with what its attach threw). */
  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      // The first one waiting starts a run; the ones queued before it begins join it.
      if (this.waiting.length === 1) this.schedule(() => this.run());
    });
  }

  private async run(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    let next = 0;
    const lane = async () => {
      while (next < batch.length) {
        const { item, resolve, reject } = batch[next++];
        await this.attach(item).then(resolve, reject);
      }
    };
    await Promise.all(Array.from({ length: Math.min(ATTACH_LANES, batch.length) }, lane));
  }
}

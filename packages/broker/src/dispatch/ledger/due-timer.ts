import { performance } from 'node:perf_hooks';

/** The longest timeout Node keeps (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * One timer for the next moment something is due (a lease ends, a delay is over), on the monotonic clock: armed
 * again only when something earlier comes due, so a subscription with thousands of leases keeps one timer.
 */
export class DueTimer {
  private timer?: NodeJS.Timeout;
  private at = Infinity;

  constructor(private readonly onDue: () => void) {}

  /** Makes sure the timer fires by `due` (undefined: nothing is due). */
  arm(due: number | undefined): void {
    if (due === undefined || due >= this.at) return;
    clearTimeout(this.timer);
    this.at = due;
    this.timer = setTimeout(
      () => {
        this.at = Infinity;
        this.timer = undefined;
        this.onDue();
      },
      // Longer timeouts fire at once (Node's limit): a far due time is reached in steps.
      Math.min(MAX_TIMEOUT_MS, Math.max(0, due - performance.now())),
    );
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.at = -Infinity;
  }
}

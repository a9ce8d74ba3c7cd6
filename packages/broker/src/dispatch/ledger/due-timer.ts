import { performance } from 'node:perf_hooks';

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
      Math.max(0, due - performance.now()),
    );
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.at = -Infinity;
  }
}

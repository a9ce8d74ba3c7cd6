/** First wait after a failed fetch or settle request. */
export const PULL_BACKOFF_INITIAL_MS = 250;
/** The wait doubles after each further failure, up to this. */
export const PULL_BACKOFF_MAX_MS = 30_000;
/** Up to this fraction is taken off each wait at random, so the instances of a service do not retry in step. */
export const PULL_BACKOFF_JITTER = 0.2;

/**
 * The wait before retry number `failures` (1-based) after the broker could not be reached or answered with an
 * error: 250 ms doubling to 30 s, each minus up to 20 % jitter (the broker's push backoff has the same shape).
 */
export function pullBackoffDelay(failures: number, random: () => number = Math.random): number {
  const base = Math.min(PULL_BACKOFF_MAX_MS, PULL_BACKOFF_INITIAL_MS * 2 ** Math.max(0, failures - 1));
  return Math.round(base * (1 - PULL_BACKOFF_JITTER * random()));
}

/** Waits `ms`, or less when `signal` aborts first; never throws. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

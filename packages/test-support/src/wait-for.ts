/** Generous by default: a busy two-core CI machine runs several suites at once. */
export const DEFAULT_WAIT_DEADLINE_MS = 20_000;
/** How often a condition is polled. */
export const DEFAULT_POLL_MS = 10;

export interface WaitForOptions {
  /** How long the condition may take before the wait fails; default {@link DEFAULT_WAIT_DEADLINE_MS}. */
  deadlineMs?: number;
  /** What was awaited, for the failure (a function is called only on failure, so it can describe the state then). */
  message: string | (() => string);
  pollMs?: number;
}

/** Polls `condition` until it holds; fails after the deadline with the message. Never a fixed sleep. */
export async function waitFor(condition: () => boolean | Promise<boolean>, options: WaitForOptions): Promise<void> {
  const { deadlineMs = DEFAULT_WAIT_DEADLINE_MS, pollMs = DEFAULT_POLL_MS } = options;
  const deadline = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${deadlineMs} ms waiting for ${describe(options.message)}`);
    await pause(pollMs);
  }
}

/** Anything that records arrivals: a {@link TestConsumer}, an array, or a function returning a count. */
export type Arrivals = { readonly received: ArrayLike<unknown> } | ArrayLike<unknown> | (() => number | Promise<number>);

export interface ExpectQuietOptions {
  /** How long nothing may arrive. */
  forMs: number;
  /** What must not happen, for the failure. */
  message: string | (() => string);
  pollMs?: number;
}

/**
 * Proves that nothing else arrives: watches `arrivals` for `forMs` and fails at the first arrival after the call
 * (rather than sleeping and looking once at the end), so a failure is reported as soon as it happens.
 */
export async function expectQuiet(arrivals: Arrivals, options: ExpectQuietOptions): Promise<void> {
  const { forMs, pollMs = DEFAULT_POLL_MS } = options;
  const count = counter(arrivals);
  const before = await count();
  const end = Date.now() + forMs;
  for (;;) {
    const now = await count();
    if (now !== before) throw new Error(`Expected quiet for ${forMs} ms, but ${now - before} arrived: ${describe(options.message)}`);
    if (Date.now() >= end) return;
    await pause(Math.min(pollMs, Math.max(0, end - Date.now())));
  }
}

/** Lets every queued promise callback run. */
export async function flushPromises(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
}

function counter(arrivals: Arrivals): () => number | Promise<number> {
  if (typeof arrivals === 'function') return arrivals;
  if ('received' in arrivals) return () => arrivals.received.length;
  return () => arrivals.length;
}

function describe(message: string | (() => string)): string {
  return typeof message === 'function' ? message() : message;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

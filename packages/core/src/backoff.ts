import { setTimeout as delay } from 'node:timers/promises';

/** First wait after a failed delivery attempt. */
export const DEFAULT_BACKOFF_INITIAL_MS = 1000;
/** Each further failure multiplies the wait by this. */
export const DEFAULT_BACKOFF_MULTIPLIER = 2;
/** The wait never exceeds this. */
export const DEFAULT_BACKOFF_MAX_MS = 60_000;
/** Up to this fraction is taken off each wait at random, so consumers recovering together are not hit at once. */
export const DEFAULT_BACKOFF_JITTER = 0.2;

export interface BackoffOptions {
  initialMs: number;
  multiplier: number;
  maxMs: number;
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  initialMs: DEFAULT_BACKOFF_INITIAL_MS,
  multiplier: DEFAULT_BACKOFF_MULTIPLIER,
  maxMs: DEFAULT_BACKOFF_MAX_MS,
  jitter: DEFAULT_BACKOFF_JITTER,
};

/** The wait before retry number `failures` (1-based): 1 s, 2 s, 4 s … 60 s, each minus up to 20 % jitter. */
export function backoffDelay(failures: number, options: BackoffOptions, random: () => number = Math.random): number {
  const base = Math.min(options.maxMs, options.initialMs * options.multiplier ** (failures - 1));
  return Math.round(base * (1 - options.jitter * random()));
}

/** A wait at the longest backoff, minus up to the jitter: for retries that are not expected to succeed soon. */
export function maxBackoffDelay(options: BackoffOptions, random: () => number = Math.random): number {
  return Math.round(options.maxMs * (1 - options.jitter * random()));
}

/** Sleeps, ending early (without throwing) when `signal` aborts. */
export async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal }).catch(() => undefined);
}

import { BackoffOptions, backoffDelay } from '@mmmq/core';

/** First wait after a failed fetch or settle request. */
export const PULL_BACKOFF_INITIAL_MS = 250;
/** The wait doubles after each further failure, up to this. */
export const PULL_BACKOFF_MAX_MS = 30_000;

/** 250 ms doubling to 30 s, each wait minus up to 20 % jitter, so the instances of a service do not retry in step. */
const PULL_BACKOFF: BackoffOptions = { initialMs: PULL_BACKOFF_INITIAL_MS, multiplier: 2, maxMs: PULL_BACKOFF_MAX_MS, jitter: 0.2 };

/** The wait before retry number `failures` (1-based) after the broker could not be reached or answered with an error. */
export function pullBackoffDelay(failures: number, random: () => number = Math.random): number {
  return backoffDelay(Math.max(1, failures), PULL_BACKOFF, random);
}

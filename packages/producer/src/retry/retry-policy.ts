import { backoffDelay } from '@mmmq/core';
import { BrokerResponseError } from '../errors/broker-response.error';
import { BrokerUnreachableError } from '../errors/broker-unreachable.error';

/** Each retry waits this many times longer than the one before, up to `maxRetryDelayMs`. */
export const RETRY_BACKOFF_MULTIPLIER = 2;
/** Up to this fraction is taken off each wait at random, so producers failing together do not retry together. */
export const RETRY_JITTER = 0.2;

const HTTP_REQUEST_TIMEOUT = 408;
const HTTP_TOO_MANY_REQUESTS = 429;

export interface RetryOptions {
  maxRetryCount: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
}

/**
 * Decides whether a failed attempt is tried again, and after how long. Retrying is always safe because every
 * attempt carries the same message id; it is only pointless when the broker said the request itself is wrong.
 */
export class RetryPolicy {
  constructor(
    private readonly options: RetryOptions,
    private readonly random: () => number = Math.random,
  ) {}

  /** Whether another attempt follows failed attempt number `attempts` (1-based). */
  shouldRetry(error: unknown, attempts: number): boolean {
    return attempts <= this.options.maxRetryCount && isTransient(error);
  }

  /**
   * The wait before retry number `retry` (1-based): `retryDelayMs` doubling per retry, minus up to 20 % jitter,
   * or longer if the broker asked for it with `Retry-After`, and never more than `maxRetryDelayMs`.
   */
  delayMs(retry: number, error: unknown): number {
    const { retryDelayMs, maxRetryDelayMs } = this.options;
    const backoff = { initialMs: retryDelayMs, multiplier: RETRY_BACKOFF_MULTIPLIER, maxMs: maxRetryDelayMs, jitter: RETRY_JITTER };
    const jittered = backoffDelay(retry, backoff, this.random);
    const requested = error instanceof BrokerResponseError ? (error.retryAfterMs ?? 0) : 0;
    return Math.min(maxRetryDelayMs, Math.max(jittered, requested));
  }
}

/**
 * Transient: no answer at all, a NACK or unreadable answer with a success status, 408, 429 and 5xx. Any other
 * status (400, 404, 409, 413, 415, a redirect …) would be answered the same way again. Errors that come from
 * neither the broker nor the network are bugs, which retrying does not fix.
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof BrokerUnreachableError) return true;
  if (!(error instanceof BrokerResponseError)) return false;
  const { status } = error;
  return (status >= 200 && status < 300) || status === HTTP_REQUEST_TIMEOUT || status === HTTP_TOO_MANY_REQUESTS || status >= 500;
}

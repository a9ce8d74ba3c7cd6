import { MmmqError } from '@mmmq/core';

/** The option naming each cap a request can reach. */
export type BrokerLimitName = 'limits.maxTopics' | 'limits.maxDispatchers' | 'limits.maxSubscriptions';

/**
 * A request would take the broker past one of its caps (`limits.*`): refused whole with 429 before anything is
 * created, so no client can exhaust the broker's memory or descriptors. The message names the cap; raising it or
 * removing dispatchers is an operator's decision, so the retry hint is long.
 */
export class BrokerLimitReachedError extends MmmqError {
  /** Retry-After of the 429: nothing frees a cap by itself. */
  readonly retryAfterMs = 60_000;

  constructor(
    readonly limit: BrokerLimitName,
    readonly max: number,
    what: string,
  ) {
    super(`${what} would go past the broker's ${limit} (${max}); nothing was created`);
  }
}

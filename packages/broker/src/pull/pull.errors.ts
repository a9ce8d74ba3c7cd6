import { MmmqError } from '@mmmq/core';

/** A consumer has as many fetches waiting as it may: answered 429, to be retried. */
export class TooManyFetchesError extends MmmqError {
  constructor(consumerId: string, limit: number) {
    super(`Consumer '${consumerId}' already has ${limit} fetches waiting; retry after one of them answers`);
  }
}

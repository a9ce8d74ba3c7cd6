import { MmmqError, MmmqValidationError } from '@mmmq/core';

/** A consumer has as many fetches waiting as it may: answered 429, to be retried. */
export class TooManyFetchesError extends MmmqError {
  constructor(consumerId: string, limit: number) {
    super(`Consumer '${consumerId}' already has ${limit} fetches waiting; retry after one of them answers`);
  }
}

/** A fetch without `member` to a consumer that keeps a roster (`maxActiveMembers`, `exclusive`, `maxMembers`): 400. */
export class MemberRequiredError extends MmmqValidationError {
  constructor(consumerId: string) {
    super(
      `member is required: consumer '${consumerId}' has maxActiveMembers, exclusive or maxMembers set, and counts its ` +
        `members by name (fetch with "member": a name kept for this instance's life)`,
    );
  }
}

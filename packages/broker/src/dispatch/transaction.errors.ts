import { MmmqError } from '@mmmq/core';

/**
 * A transaction names an input whose lease is no longer the current one — the message was redelivered, its lease
 * expired, or it was settled — or that another transaction commits now. Answered 409; nothing was published.
 */
export class StaleLeaseError extends MmmqError {
  constructor(readonly lease: string) {
    super(
      `The lease ${lease} is no longer held (the message was redelivered, its lease expired, it was settled, or another ` +
        'transaction settles it); nothing of this transaction was published',
    );
  }
}

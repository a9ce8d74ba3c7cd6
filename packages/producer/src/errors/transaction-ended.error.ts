import { MmmqError } from '@mmmq/core';

/**
 * `tx.produce()` was called after the callback of `Producer.transaction()` had settled, typically from work the
 * callback started without awaiting it. The message was not added: the transaction was already committed (or
 * is being committed) without it, or was abandoned because the callback threw.
 */
export class TransactionEndedError extends MmmqError {}

import { MmmqError } from '@mmmq/core';

/**
 * A handler used `context.ack()`, `nack()`, `terminate()` or `inProgress()` where it cannot: the listener's
 * ack mode is not `manual` (or, for `inProgress()`, is `none`), or the message was settled already.
 */
export class SettlementError extends MmmqError {}

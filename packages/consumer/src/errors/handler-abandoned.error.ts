import { MmmqError } from '@mmmq/core';

/**
 * A handler did not finish within `shutdownTimeoutMs`: the message is not acknowledged, and since the handler saw
 * it, the push is answered 500 (not 503, which says nothing was handled), so the broker counts the delivery and
 * redelivers the message flagged `redelivered`.
 */
export class HandlerAbandonedError extends MmmqError {}

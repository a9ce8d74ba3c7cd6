import { MmmqError } from '@mmmq/core';

/**
 * The broker no longer holds this consumer's lease on a message (it expired, went to another member, or the
 * message was settled already): the ack, extension or nack did not count, and the message is (or was)
 * delivered again. Work done for it may be repeated elsewhere.
 */
export class LeaseLostError extends MmmqError {}

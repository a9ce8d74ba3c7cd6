import { MmmqError } from '@mmmq/core';

/** A stored payload is not a message envelope (neither this broker's format nor the original Java one). */
export class MalformedEnvelopeError extends MmmqError {}

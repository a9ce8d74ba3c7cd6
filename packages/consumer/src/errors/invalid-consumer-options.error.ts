import { MmmqError } from '@mmmq/core';

/** A `MmmqConsumerOptions` value is unusable; the application refuses to start and the message names the option. */
export class InvalidConsumerOptionsError extends MmmqError {}

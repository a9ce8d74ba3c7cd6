import { MmmqError } from '@mmmq/core';

/**
 * An option of the outbox or its relay is unusable; the application refuses to start, naming the option. Also
 * thrown by a call that needs a setting the options turned off (`purgePublished()` without retention).
 */
export class InvalidOutboxOptionsError extends MmmqError {}

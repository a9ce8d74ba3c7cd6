import { MmmqError } from '@mmmq/core';

/** An option of the outbox or its relay is unusable; the application refuses to start, naming the option. */
export class InvalidOutboxOptionsError extends MmmqError {}

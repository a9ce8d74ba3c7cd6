import { MmmqError } from '@mmmq/core';

/** A `MmmqProducerOptions` value is unusable; the application refuses to start, naming the option. */
export class InvalidProducerOptionsError extends MmmqError {}

import { MmmqError } from '@mmmq/core';

/** A listener is declared wrongly (signature, pattern, name, consumer id); the message names its class and method. */
export class InvalidListenerError extends MmmqError {}

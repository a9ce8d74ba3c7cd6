import { MmmqError } from '@mmmq/core';

/** A handler failed in a way another attempt may change: the broker retries it (then dead-letters it). */
export class HandlerFailedError extends MmmqError {}

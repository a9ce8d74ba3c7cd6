import { MmmqError } from '@mmmq/core';

/** An inbox option is missing or wrong; the message names it. */
export class InvalidInboxOptionsError extends MmmqError {}

import { MmmqError } from '@mmmq/core';

/** An option of `new MmmqServer({...})`, or a handler's `@EventPattern`, that cannot work; the message names it. */
export class InvalidServerOptionsError extends MmmqError {}

import { MmmqError } from '@mmmq/core';

/** The publish stream's port cannot be bound (in use, not permitted); the application does not start. */
export class StreamListenError extends MmmqError {}

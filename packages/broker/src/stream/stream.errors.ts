import { MmmqError } from '@mmmq/core';

/** A stream request refused because an earlier one on the same connection failed; it was not stored (503). */
export class StreamFencedError extends MmmqError {
  constructor(cause: string) {
    super(`Not stored: an earlier publish on this connection failed (${cause}); resend it and everything after it`);
  }
}

/** The publish stream's port cannot be bound (in use, not permitted); the application does not start. */
export class StreamListenError extends MmmqError {}

import { MmmqError } from '@mmmq/core';

export interface BrokerResponse {
  /** The HTTP status of the answer (400 for a message an in-memory broker refused). */
  status: number;
  /** What the broker said, for humans; empty when it said nothing readable. */
  reason: string;
  /** How long the broker asked the producer to wait (`Retry-After`), in ms, when it did. */
  retryAfterMs?: number;
}

/**
 * One attempt was answered, but not with an acknowledgement: a NACK (whatever the status), an error status, or
 * a reply the producer cannot read. Whether it is retried depends on the status.
 */
export class BrokerResponseError extends MmmqError implements BrokerResponse {
  readonly status: number;
  readonly reason: string;
  readonly retryAfterMs?: number;

  constructor(message: string, response: BrokerResponse, options?: { cause?: unknown }) {
    super(message, options);
    this.status = response.status;
    this.reason = response.reason;
    this.retryAfterMs = response.retryAfterMs;
  }
}

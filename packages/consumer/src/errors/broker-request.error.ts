import { MmmqError } from '@mmmq/core';

/**
 * A request to the broker's dispatcher API failed. `retriable` is true when trying again may help (the broker
 * is unreachable, timed out, or answered 5xx or 429) and false when it answered that the request is wrong.
 */
export class BrokerRequestError extends MmmqError {
  /** The broker's HTTP status, when it answered. */
  readonly status?: number;

  constructor(
    message: string,
    readonly retriable: boolean,
    options?: { cause?: unknown; status?: number },
  ) {
    super(message, options);
    this.status = options?.status;
  }
}

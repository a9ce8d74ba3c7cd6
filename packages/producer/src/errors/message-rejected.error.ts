import { BrokerResponseError } from './broker-response.error';
import { ProduceError, ProduceFailure, publishing } from './produce.error';

/**
 * The broker refused the message (or batch) for good: invalid (400), topic name conflict (409), too large
 * (413), unsupported encoding (415), unknown route (404). Nothing was stored, and it is not retried, because the
 * same request would be refused again.
 */
export class MessageRejectedError extends ProduceError {
  /** The HTTP status of the refusal. */
  readonly status: number;

  constructor(failure: ProduceFailure, cause: BrokerResponseError) {
    super(
      `${publishing(failure)} was refused by the broker with ${cause.status}: ${cause.reason || cause.message}. ` +
        'Nothing was stored and it was not retried, since the same request would be refused again.',
      failure,
      { cause },
    );
    this.status = cause.status;
  }
}

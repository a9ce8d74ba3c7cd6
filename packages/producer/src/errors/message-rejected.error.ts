import { BrokerResponseError } from './broker-response.error';
import { ProduceError, ProduceFailure, publishing } from './produce.error';

const PAYLOAD_TOO_LARGE = 413;
/** Large contents need not fit in a message: say how, where the limit is hit. */
const CLAIM_CHECK_HINT =
  ' Contents larger than the broker allows can travel as claim checks: set the producer option claimCheck ' +
  '(or lower claimCheck.thresholdBytes); see docs/exactly-once.md#claim-check.';

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
        'Nothing was stored and it was not retried, since the same request would be refused again.' +
        (cause.status === PAYLOAD_TOO_LARGE ? CLAIM_CHECK_HINT : ''),
      failure,
      { cause },
    );
    this.status = cause.status;
  }
}

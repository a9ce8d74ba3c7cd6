/**
 * Limits of the wire contract that the broker enforces and the consumer checks at bootstrap, so a bad option fails
 * when the application starts rather than when the broker refuses a registration or a request.
 */

/** The largest `batchSize` a dispatcher may ask for: messages per push. */
export const MAX_PUSH_BATCH_SIZE = 1000;
/** The largest `maxInFlight` a dispatcher may ask for: pushes of one subscription on their way at once. */
export const MAX_PUSH_IN_FLIGHT = 16;
/** A pulled message's lease when neither its dispatcher nor its fetch says otherwise (`ackTimeoutMs`). */
export const DEFAULT_ACK_TIMEOUT_MS = 30_000;
/** The shortest `ackTimeoutMs` (a message's lease) a dispatcher may ask for. */
export const MIN_ACK_TIMEOUT_MS = 1000;
/** The longest `ackTimeoutMs`: 12 hours, SQS's longest visibility timeout. */
export const MAX_ACK_TIMEOUT_MS = 12 * 60 * 60 * 1000;
/** The most messages one fetch (`max`) answers. */
export const MAX_FETCH_MESSAGES = 1000;
/** The longest one fetch (`waitMs`) waits for a first message. */
export const MAX_FETCH_WAIT_MS = 60_000;
/**
 * How long a refused sender (429, 503: backpressure, storage, shutdown) is asked to wait when nothing says otherwise
 * (`Retry-After`); the sender's own backoff decides in the end.
 */
export const RETRY_AFTER_SECONDS = 1;
/** The longest redelivery delay a NACK (`delayMs`) may ask for: 1 hour. */
export const MAX_NACK_DELAY_MS = 3_600_000;

import { TRACE_HEADERS } from './tracing/trace-headers';

/**
 * The headers every message relayed from a transactional outbox carries, whoever relays it: `@mmmq/postgres`'s
 * polling relay, or a change-data-capture pipeline (Debezium's outbox event router, say) configured to write the
 * same names. Consumers read these, never the relay's internals, so one relay can replace the other unnoticed.
 * The contract is documented in docs/exactly-once.md.
 */
export const OUTBOX_HEADERS = {
  /** The outbox row's `message_id`, also the message's id: the key of broker and inbox de-duplication. */
  messageId: 'mmmq-outbox-message-id',
  /** The kind of entity the event is about (`order`), when the row names one. */
  aggregateType: 'mmmq-aggregate-type',
  /** That entity's id (`o-1042`); messages of one aggregate are relayed in order when the relay is asked to. */
  aggregateId: 'mmmq-aggregate-id',
  /** W3C trace context of the transaction that wrote the row, when it had one. */
  traceparent: TRACE_HEADERS.traceparent,
  /** W3C trace state, with `traceparent`. */
  tracestate: TRACE_HEADERS.tracestate,
  /** When the row was written: an ISO 8601 timestamp from the database clock. */
  createdAt: 'mmmq-outbox-created-at',
  /**
   * A scheduled row's due time (ISO 8601), kept in the row's headers: the relay publishes it as the message's
   * `deliverAt` (docs/delivery.md#scheduled-messages) and does not relay the header itself.
   */
  deliverAt: 'mmmq-outbox-deliver-at',
} as const;

export type OutboxHeaderName = (typeof OUTBOX_HEADERS)[keyof typeof OUTBOX_HEADERS];

import { randomUUID } from 'node:crypto';
import {
  assertHeaders,
  assertMessageId,
  HEADER_VALUE_MAX_LENGTH,
  InvalidMessageError,
  InvalidTopicError,
  MessageHeaders,
  OUTBOX_HEADERS,
  assertSchedule,
  Topic,
} from '@mmmq/core';
import { describeValue } from '@mmmq/core';
import { withActiveTraceContext } from './active-trace-context';

/** What `outbox.add()` accepts besides the topic and the content. */
export interface OutboxAddOptions {
  /** The message id (printable ASCII, at most 256 characters). Default: a random UUID. */
  id?: string;
  /** Application headers. The reserved names of `OUTBOX_HEADERS` are refused: the relay sets those. */
  headers?: MessageHeaders;
  /** The kind of entity the event is about (`order`); relayed as `mmmq-aggregate-type`. */
  aggregateType?: string;
  /** That entity's id (`o-1042`); relayed as `mmmq-aggregate-id`, and the key of per-aggregate order. */
  aggregateId?: string;
  /** W3C trace context of the current span, relayed as `traceparent`. */
  traceparent?: string;
  /** W3C trace state, relayed as `tracestate`. */
  tracestate?: string;
  /**
   * A scheduled message: not delivered before this time (a `Date` or an ISO 8601 string with a zone), however early
   * the relay publishes it. Not with `delayMs`.
   */
  deliverAt?: Date | string;
  /** A scheduled message: not delivered before this many ms after `add()` (this process's clock). Not with `deliverAt`. */
  delayMs?: number;
}

/** One message of `outbox.addMany()`. */
export interface OutboxMessageInput extends OutboxAddOptions {
  topic: string;
  content: unknown;
}

/** A message ready to insert: validated, its id fixed and its content serialised once. */
export interface OutboxRowInput {
  id: string;
  topic: string;
  content: string;
  headers: MessageHeaders;
  aggregateType: string | null;
  aggregateId: string | null;
  traceparent: string | null;
  tracestate: string | null;
}

const KNOWN_OPTIONS = new Set(['id', 'headers', 'aggregateType', 'aggregateId', 'traceparent', 'tracestate', 'deliverAt', 'delayMs']);
const RESERVED_HEADERS: ReadonlySet<string> = new Set(Object.values(OUTBOX_HEADERS));

/**
 * Validates a message as the producer and the broker would, including the headers the relay will add, so that
 * a row the broker would refuse is refused here, inside the caller's transaction, rather than FAILED later.
 * @throws MmmqValidationError (InvalidTopicError, InvalidMessageError) naming the problem
 */
export function prepareOutboxMessage(topic: unknown, content: unknown, options: OutboxAddOptions = {}): OutboxRowInput {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidMessageError(`outbox.add() options must be an object, got ${describeValue(options)}`);
  }
  options = withActiveTraceContext(options);
  const unknown: string[] = [];
  for (const key in options) if (!KNOWN_OPTIONS.has(key) && Object.hasOwn(options, key)) unknown.push(key);
  if (unknown.length > 0) {
    throw new InvalidMessageError(`Unknown outbox.add() option(s) ${unknown.join(', ')}; the options are ${[...KNOWN_OPTIONS].join(', ')}`);
  }
  const name = new Topic(topic);
  if (name.isReserved) throw new InvalidTopicError(`Topic ${name.name} is reserved for the broker (names starting with "__")`);
  const headers = options.headers === undefined ? {} : { ...assertHeaders(options.headers) };
  const reserved: string[] = [];
  for (const header in headers) if (RESERVED_HEADERS.has(header.toLowerCase())) reserved.push(header);
  if (reserved.length > 0) {
    throw new InvalidMessageError(
      `Header(s) ${reserved.join(', ')} are reserved for the outbox relay; pass aggregateType, aggregateId, traceparent ` +
        'or tracestate as options instead',
    );
  }
  // Kept in the row's headers (no column of its own): the relay turns it into the publish's deliverAt.
  const { deliverAt, delayMs } = assertSchedule(options);
  if (delayMs !== undefined && delayMs > 0) headers[OUTBOX_HEADERS.deliverAt] = new Date(Date.now() + delayMs).toISOString();
  else if (deliverAt !== undefined) headers[OUTBOX_HEADERS.deliverAt] = deliverAt;
  const row: OutboxRowInput = {
    id: options.id === undefined ? randomUUID() : assertMessageId(options.id),
    topic: name.name,
    content: serialiseContent(content),
    headers,
    aggregateType: optionalText('aggregateType', options.aggregateType),
    aggregateId: optionalText('aggregateId', options.aggregateId),
    traceparent: optionalText('traceparent', options.traceparent),
    tracestate: optionalText('tracestate', options.tracestate),
  };
  // The headers as relayed (the timestamp has a fixed length): refused now if the relay's would be. A bare row's are
  // only its id, checked above, and the timestamp.
  if (!isBare(row)) assertHeaders(relayedHeaders(row.id, row, new Date()));
  return row;
}

/** Without headers, aggregate or trace context: most messages, whose columns beyond id, topic and content keep their defaults. */
export function isBare(row: OutboxRowInput): boolean {
  if (row.aggregateType !== null || row.aggregateId !== null || row.traceparent !== null || row.tracestate !== null) return false;
  for (const _ in row.headers) return false;
  return true;
}

/** The headers the relay publishes message `id` with: the row's own, then the reserved {@link OUTBOX_HEADERS}. */
export function relayedHeaders(
  id: string,
  row: Pick<OutboxRowInput, 'headers' | 'aggregateType' | 'aggregateId' | 'traceparent' | 'tracestate'>,
  createdAt: Date,
): MessageHeaders {
  const headers: MessageHeaders = { ...row.headers, [OUTBOX_HEADERS.messageId]: id };
  if (row.aggregateType !== null) headers[OUTBOX_HEADERS.aggregateType] = row.aggregateType;
  if (row.aggregateId !== null) headers[OUTBOX_HEADERS.aggregateId] = row.aggregateId;
  if (row.traceparent !== null) headers[OUTBOX_HEADERS.traceparent] = row.traceparent;
  if (row.tracestate !== null) headers[OUTBOX_HEADERS.tracestate] = row.tracestate;
  headers[OUTBOX_HEADERS.createdAt] = createdAt.toISOString();
  return headers;
}

function optionalText(option: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '' || value.length > HEADER_VALUE_MAX_LENGTH) {
    throw new InvalidMessageError(
      `outbox.add() option ${option} must be a non-empty string of at most ${HEADER_VALUE_MAX_LENGTH} characters, got ${describeValue(value)}`,
    );
  }
  return value;
}

function serialiseContent(content: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(content);
  } catch (error) {
    throw new InvalidMessageError(`Outbox content cannot be serialised to JSON: ${(error as Error).message}`, { cause: error });
  }
  if (json === undefined) throw new InvalidMessageError(`Outbox content must be a JSON value (null included), got ${typeof content}`);
  return json;
}

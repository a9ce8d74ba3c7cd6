import { describeValue } from './errors/describe-value';
import { InvalidMessageError } from './errors/invalid-message-error';

/** The lowest and highest priority a message may have (JMS: 0–9). */
export const MIN_PRIORITY = 0;
export const MAX_PRIORITY = 9;
/** A message published without a priority has JMS's default, the middle of the range. */
export const DEFAULT_PRIORITY = 4;

/** What a producer may say about a message's life and precedence, besides its headers. */
export interface MessageProperties {
  /** Time to live in ms from the moment the broker accepts the message. Not with `expiresAt`. */
  ttlMs?: number;
  /** Epoch ms (wall clock) after which the message is not delivered any more. Not with `ttlMs`. */
  expiresAt?: number;
  /** {@link MIN_PRIORITY}–{@link MAX_PRIORITY}; default {@link DEFAULT_PRIORITY}. */
  priority?: number;
  /** Not delivered before this many ms after the broker accepts the message (0: at once). Not with `deliverAt`. */
  delayMs?: number;
  /** Not delivered before this time: ISO 8601 with a time zone (`2026-12-24T18:00:00Z`). Not with `delayMs`. */
  deliverAt?: string;
}

/** ISO 8601 date and time with seconds optional, a fraction optional, and a zone (`Z` or `±hh:mm`) required. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Checks the message properties of a publish (null counts as absent, as for `id`) and returns those given.
 *
 * @throws InvalidMessageError naming the field: `ttlMs` or `expiresAt` not a positive integer, both given, or a
 *   `priority` that is not an integer from 0 to 9
 */
export function assertMessageProperties(message: {
  ttlMs?: unknown;
  expiresAt?: unknown;
  priority?: unknown;
  delayMs?: unknown;
  deliverAt?: unknown;
}): MessageProperties {
  const properties: MessageProperties = {};
  if (message.ttlMs != null) properties.ttlMs = positiveInteger('ttlMs', message.ttlMs);
  if (message.expiresAt != null) properties.expiresAt = positiveInteger('expiresAt', message.expiresAt);
  if (properties.ttlMs !== undefined && properties.expiresAt !== undefined) {
    throw new InvalidMessageError('Message fields "ttlMs" and "expiresAt" cannot both be given: choose one');
  }
  if (message.priority != null) properties.priority = assertPriority(message.priority);
  Object.assign(properties, assertSchedule(message));
  return properties;
}

/**
 * Checks a publish's schedule: `delayMs` a non-negative integer, or `deliverAt` an ISO 8601 time with a zone (a
 * `Date` is taken as its ISO form), not both. Null counts as absent. The broker also bounds it (`limits.maxDelayMs`).
 *
 * @throws InvalidMessageError naming the field
 */
export function assertSchedule(message: { delayMs?: unknown; deliverAt?: unknown }): Pick<MessageProperties, 'delayMs' | 'deliverAt'> {
  const { delayMs, deliverAt } = message;
  if (delayMs != null && deliverAt != null) {
    throw new InvalidMessageError('Message fields "delayMs" and "deliverAt" cannot both be given: choose one');
  }
  if (delayMs != null) {
    if (typeof delayMs === 'number' && Number.isSafeInteger(delayMs) && delayMs >= 0) return { delayMs };
    throw new InvalidMessageError(`Message field "delayMs" must be a non-negative integer (ms), got ${describeValue(delayMs)}`);
  }
  if (deliverAt != null) {
    const iso = deliverAt instanceof Date && Number.isFinite(deliverAt.getTime()) ? deliverAt.toISOString() : deliverAt;
    if (typeof iso === 'string' && ISO_INSTANT.test(iso) && Number.isFinite(Date.parse(iso))) return { deliverAt: iso };
    throw new InvalidMessageError(
      `Message field "deliverAt" must be an ISO 8601 time with a zone, such as "2026-12-24T18:00:00Z", got ${describeValue(deliverAt)}`,
    );
  }
  return {};
}

/**
 * @returns `priority`, narrowed to a number
 * @throws InvalidMessageError naming the `priority` field
 */
export function assertPriority(priority: unknown): number {
  if (typeof priority === 'number' && Number.isInteger(priority) && priority >= MIN_PRIORITY && priority <= MAX_PRIORITY) return priority;
  throw new InvalidMessageError(
    `Message field "priority" must be an integer from ${MIN_PRIORITY} to ${MAX_PRIORITY}, got ${describeValue(priority)}`,
  );
}

function positiveInteger(field: string, value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  throw new InvalidMessageError(`Message field "${field}" must be a positive integer (ms), got ${describeValue(value)}`);
}

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
}

/**
 * Checks the message properties of a publish (null counts as absent, as for `id`) and returns those given.
 *
 * @throws InvalidMessageError naming the field: `ttlMs` or `expiresAt` not a positive integer, both given, or a
 *   `priority` that is not an integer from 0 to 9
 */
export function assertMessageProperties(message: { ttlMs?: unknown; expiresAt?: unknown; priority?: unknown }): MessageProperties {
  const properties: MessageProperties = {};
  if (message.ttlMs != null) properties.ttlMs = positiveInteger('ttlMs', message.ttlMs);
  if (message.expiresAt != null) properties.expiresAt = positiveInteger('expiresAt', message.expiresAt);
  if (properties.ttlMs !== undefined && properties.expiresAt !== undefined) {
    throw new InvalidMessageError('Message fields "ttlMs" and "expiresAt" cannot both be given: choose one');
  }
  if (message.priority != null) properties.priority = assertPriority(message.priority);
  return properties;
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

import { MAX_PRIORITY, MIN_PRIORITY, type MessageHeaders } from '@mmmq/core';
import type { ConsumerDelivery } from '../listener/consumer-delivery';
import { InvalidDeliveryError } from '../errors/invalid-delivery.error';

/**
 * Checks that a parsed body is a delivery as the broker sends it. `id`, `topic` and `content` are required;
 * the bookkeeping fields get neutral defaults so that a hand-written test request stays short (`lastAttempt`: false,
 * as from brokers before it). `lease` (sent by brokers with leases) is kept when it is a non-empty string, and so
 * are `expiresAt` and `priority` when the broker sends them.
 * @throws InvalidDeliveryError naming the first bad field
 */
export function parseDeliveryRequest(body: unknown): ConsumerDelivery {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidDeliveryError('A delivery must be a JSON object with id, topic and content');
  }
  const record = body as Record<string, unknown>;
  const {
    id,
    topic,
    content,
    headers = {},
    offset = 0,
    deliveryCount = 1,
    redelivered = false,
    publishedAt = null,
    lease,
    lastAttempt = false,
    expiresAt,
    priority,
  } = record;
  if (typeof id !== 'string') throw invalid('id', 'a string', id);
  if (typeof topic !== 'string') throw invalid('topic', 'a string', topic);
  if (content === undefined) throw new InvalidDeliveryError('A delivery must have a content field');
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) throw invalid('headers', 'an object', headers);
  if (!Number.isSafeInteger(offset)) throw invalid('offset', 'an integer', offset);
  if (!Number.isSafeInteger(deliveryCount)) throw invalid('deliveryCount', 'an integer', deliveryCount);
  if (typeof redelivered !== 'boolean') throw invalid('redelivered', 'a boolean', redelivered);
  if (publishedAt !== null && !Number.isFinite(publishedAt)) throw invalid('publishedAt', 'a number or null', publishedAt);
  if (lease !== undefined && (typeof lease !== 'string' || lease === '')) throw invalid('lease', 'a non-empty string', lease);
  if (typeof lastAttempt !== 'boolean') throw invalid('lastAttempt', 'a boolean', lastAttempt);
  if (expiresAt !== undefined && !Number.isSafeInteger(expiresAt)) throw invalid('expiresAt', 'an integer', expiresAt);
  if (
    priority !== undefined &&
    !(Number.isInteger(priority) && (priority as number) >= MIN_PRIORITY && (priority as number) <= MAX_PRIORITY)
  ) {
    throw invalid('priority', `an integer from ${MIN_PRIORITY} to ${MAX_PRIORITY}`, priority);
  }
  return {
    id,
    topic,
    content,
    headers: headers as MessageHeaders,
    offset: offset as number,
    deliveryCount: deliveryCount as number,
    redelivered,
    publishedAt: publishedAt as number | null,
    ...(lease === undefined ? {} : { lease: lease as string }),
    lastAttempt,
    ...(expiresAt === undefined ? {} : { expiresAt: expiresAt as number }),
    ...(priority === undefined ? {} : { priority: priority as number }),
  };
}

function invalid(field: string, expected: string, value: unknown): InvalidDeliveryError {
  return new InvalidDeliveryError(`The delivery field ${field} must be ${expected}, got ${JSON.stringify(value) ?? String(value)}`);
}

/**
 * Checks a batched push, `{"messages":[…]}`, each entry as {@link parseDeliveryRequest} does.
 * @throws InvalidDeliveryError naming the first bad entry
 */
export function parseDeliveryBatch(body: unknown): ConsumerDelivery[] {
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new InvalidDeliveryError('A batched delivery must be a JSON object with a non-empty messages array');
  }
  return messages.map((message: unknown, i) => {
    try {
      return parseDeliveryRequest(message);
    } catch (error) {
      throw new InvalidDeliveryError(`messages[${i}]: ${(error as Error).message}`, { cause: error });
    }
  });
}

/** Longest `mmmq-push-session` accepted; the broker sends a UUID. */
const MAX_SESSION_LENGTH = 128;

/**
 * The push's place among the pushes in flight of its subscription, from `mmmq-push-session` and
 * `mmmq-push-sequence`; undefined when neither is sent (one push at a time).
 * @throws InvalidDeliveryError when only one is sent or either is malformed
 */
export function parsePushOrder(
  session: string | undefined,
  sequence: string | undefined,
): { session: string; sequence: number } | undefined {
  if (session === undefined && sequence === undefined) return undefined;
  if (session === undefined || session.length === 0 || session.length > MAX_SESSION_LENGTH) {
    throw new InvalidDeliveryError(`mmmq-push-session must be 1 to ${MAX_SESSION_LENGTH} characters, sent with mmmq-push-sequence`);
  }
  if (sequence === undefined || !/^\d{1,15}$/.test(sequence)) {
    throw new InvalidDeliveryError(`mmmq-push-sequence must be a non-negative integer, got ${JSON.stringify(sequence ?? null)}`);
  }
  return { session, sequence: Number(sequence) };
}

/** One subscription's window of a shared push, parsed. */
export interface SharedPushPart {
  consumerId: string;
  order: { session: string; sequence: number } | undefined;
  deliveries: ConsumerDelivery[];
}

/**
 * Checks a shared push, `{"parts":[{"consumerId","topic","session"?,"sequence"?,"messages":[…]}, …]}`: each part as
 * a batched push of its consumer id, numbered as its `mmmq-push-session`/`-sequence` headers would be.
 * @throws InvalidDeliveryError naming the first bad part
 */
export function parseSharedPush(body: unknown): SharedPushPart[] {
  const parts = (body as { parts?: unknown } | null)?.parts;
  if (!Array.isArray(parts) || parts.length === 0) {
    throw new InvalidDeliveryError('A shared push must be a JSON object with a non-empty parts array');
  }
  return parts.map((part: unknown, i) => {
    try {
      const { consumerId, session, sequence } = (part ?? {}) as Record<string, unknown>;
      if (typeof consumerId !== 'string' || consumerId === '') throw invalid('consumerId', 'a non-empty string', consumerId);
      if (session !== undefined && typeof session !== 'string') throw invalid('session', 'a string', session);
      if (sequence !== undefined && !Number.isSafeInteger(sequence)) throw invalid('sequence', 'an integer', sequence);
      const order = parsePushOrder(session, sequence === undefined ? undefined : String(sequence));
      return { consumerId, order, deliveries: parseDeliveryBatch(part) };
    } catch (error) {
      throw new InvalidDeliveryError(`parts[${i}]: ${(error as Error).message}`, { cause: error });
    }
  });
}

import type { ConsumeMessage, Options } from 'amqplib';
import { InvalidMessageError, MessageHeaders, refuseScheduled, TransportDelivery, TransportMessage } from '@mmmq/core';

/** Headers this transport adds for itself; never handed to listeners, refused from producers. */
export const InternalHeaders = {
  PREFIX: 'x-mmmq-',
  /** The MMMQ topic, once the routing key no longer says it (a message back from a retry queue). */
  TOPIC: 'x-mmmq-topic',
  /** Publish time in epoch ms (AMQP's `timestamp` has whole seconds). */
  PUBLISHED_AT: 'x-mmmq-published-at',
  /** Epoch ms after which the message is not delivered any more. */
  EXPIRES_AT: 'x-mmmq-expires-at',
  /** NACKs so far: what `retry.maxDeliveries` counts. */
  NACKS: 'x-mmmq-nacks',
  /** Deliveries before the message was sent through a retry queue (a new message for RabbitMQ, counting from 0). */
  DELIVERIES: 'x-mmmq-deliveries',
} as const;

/** Set by RabbitMQ on dead-lettered and redelivered messages: transport bookkeeping, not the producer's headers. */
export const RABBITMQ_HEADERS = /^x-(death|first-death-.*|last-death-.*|delivery-count)$/;
const CONTENT_TYPE = 'application/json';
/** AMQP short strings (`messageId`, header names) hold at most 255 bytes; MMMQ allows 256 characters. */
export const AMQP_SHORT_STRING_MAX_BYTES = 255;
const AMQP_PERSISTENT = 2;
const AMQP_TRANSIENT = 1;

/** The properties of a publish: `messageId` = the MMMQ id, headers as AMQP headers, TTL as `expiration`. */
export function publishOptionsOf(message: TransportMessage, now: number, mandatory: boolean): Options.Publish {
  // RabbitMQ would deliver it at once: a scheduled message needs a plugin this transport does not use.
  refuseScheduled(message, 'RabbitMQ transport', now);
  // amqplib cannot encode a longer one: the publish would fail, and be retried, forever.
  shortString('Message id', message.id);
  const headers: Record<string, unknown> = { [InternalHeaders.PUBLISHED_AT]: now };
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    shortString('Message header name', name);
    if (name.startsWith(InternalHeaders.PREFIX)) {
      throw new InvalidMessageError(
        `Message header ${JSON.stringify(name)}: names starting with "${InternalHeaders.PREFIX}" are reserved by the RabbitMQ transport`,
      );
    }
    headers[name] = value;
  }
  const expiresAt = message.expiresAt ?? (message.ttlMs === undefined ? undefined : now + message.ttlMs);
  if (expiresAt !== undefined) headers[InternalHeaders.EXPIRES_AT] = expiresAt;
  return {
    messageId: message.id,
    headers,
    timestamp: Math.floor(now / 1000),
    contentType: CONTENT_TYPE,
    deliveryMode: message.deliveryMode === 'nonPersistent' ? AMQP_TRANSIENT : AMQP_PERSISTENT,
    ...(expiresAt === undefined ? {} : { expiration: String(Math.max(1, expiresAt - now)) }),
    ...(message.priority === undefined ? {} : { priority: message.priority }),
    mandatory,
  };
}

function shortString(what: string, text: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > AMQP_SHORT_STRING_MAX_BYTES) {
    throw new InvalidMessageError(
      `${what} ${JSON.stringify(text.slice(0, 40))}… is ${bytes} bytes in UTF-8; RabbitMQ takes at most ${AMQP_SHORT_STRING_MAX_BYTES}`,
    );
  }
}

/** What the transport keeps of a delivery besides what the handler sees. */
export interface ReceivedDelivery {
  delivery: TransportDelivery;
  /** NACKs before this delivery. */
  nacks: number;
}

/** A RabbitMQ delivery as the consumer sees it: `lastAttempt` when one more NACK makes `maxDeliveries`. */
export function deliveryOf(message: ConsumeMessage, maxDeliveries: number): ReceivedDelivery {
  const { properties, fields } = message;
  const raw = (properties.headers ?? {}) as Record<string, unknown>;
  const nacks = integer(raw[InternalHeaders.NACKS]);
  // The quorum queue counts its own returns (crashes, dropped connections); a retry queue starts a new count.
  const deliveryCount = integer(raw[InternalHeaders.DELIVERIES]) + integer(raw['x-delivery-count']) + 1;
  const headers: MessageHeaders = {};
  for (const [name, value] of Object.entries(raw)) {
    if (name.startsWith(InternalHeaders.PREFIX) || RABBITMQ_HEADERS.test(name)) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') headers[name] = value;
  }
  const publishedAt = numberOrUndefined(raw[InternalHeaders.PUBLISHED_AT]) ?? secondsToMs(properties.timestamp);
  const expiresAt = numberOrUndefined(raw[InternalHeaders.EXPIRES_AT]);
  const delivery: TransportDelivery = {
    id: typeof properties.messageId === 'string' ? properties.messageId : `${fields.exchange}:${fields.deliveryTag}`,
    topic: typeof raw[InternalHeaders.TOPIC] === 'string' ? (raw[InternalHeaders.TOPIC] as string) : fields.routingKey,
    content: JSON.parse(message.content.toString('utf8')) as unknown,
    headers,
    offset: -1,
    deliveryCount,
    redelivered: deliveryCount > 1 || fields.redelivered,
    publishedAt: publishedAt ?? null,
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ...(typeof properties.priority === 'number' ? { priority: properties.priority } : {}),
    lastAttempt: nacks + 1 >= maxDeliveries,
  };
  return { delivery, nacks };
}

function integer(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function secondsToMs(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value * 1000 : undefined;
}

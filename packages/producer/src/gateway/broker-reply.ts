import { Acknowledgement, type CancelledScheduledMessage, isBrokerAcknowledgement, PublishedMessage } from '@mmmq/core';
import { BrokerResponseError } from '../errors/broker-response.error';
import type { OutgoingMessage } from '../outgoing-message';
import { parseRetryAfter } from '../retry/retry-after';

/** An HTTP answer of the broker, whatever its status. */
export interface BrokerReply {
  url: string;
  status: number;
  body: string;
  retryAfter: string | undefined;
}

/** How much of an unreadable reply an error quotes. */
const QUOTED_REPLY_MAX_LENGTH = 200;

/**
 * The acknowledgement of a single publish.
 * @throws BrokerResponseError for a NACK, an error status, or an ACK that does not describe `sent`
 */
export function readPublishReply(reply: BrokerReply, sent: OutgoingMessage): PublishedMessage {
  const published = asPublished(readAcknowledgement(reply));
  if (published === undefined || !describes(published, sent)) {
    throw unreadable(reply, `an ACK with the id ${sent.id}, the topic ${sent.topic} and (when persistent) an offset`);
  }
  return published;
}

/**
 * The acknowledgement of a batch publish, one entry per sent message, in order.
 * @throws BrokerResponseError for a NACK, an error status, or an ACK that does not describe `sent`
 */
export function readBatchReply(reply: BrokerReply, sent: readonly OutgoingMessage[]): PublishedMessage[] {
  const { messages } = readAcknowledgement(reply);
  if (!Array.isArray(messages) || messages.length !== sent.length) {
    throw unreadable(reply, `an ACK with one entry per message of the batch (${sent.length})`);
  }
  return messages.map((entry: unknown, index) => {
    const published = asPublished(entry);
    if (published === undefined || !describes(published, sent[index])) {
      throw unreadable(reply, `an ACK whose messages[${index}] has the id ${sent[index].id} and (when persistent) an offset`);
    }
    return published;
  });
}

/** `{"cancelled": {topic, id, offset, dueAt}}`; a refusal (400, 404, 409, …) is a BrokerResponseError with its status. */
export function readCancelReply(reply: BrokerReply): CancelledScheduledMessage {
  const body = parseJson(reply.body);
  if (reply.status !== 200) {
    const reason = messageOf(body) ?? quote(reply.body);
    throw new BrokerResponseError(`The broker at ${reply.url} answered ${reply.status}${reason === '' ? '' : `: ${reason}`}`, {
      status: reply.status,
      reason,
      retryAfterMs: parseRetryAfter(reply.retryAfter),
    });
  }
  const cancelled = (body as { cancelled?: CancelledScheduledMessage } | undefined)?.cancelled;
  if (typeof cancelled?.offset !== 'number' || typeof cancelled.dueAt !== 'number') throw unreadable(reply, '{"cancelled": {…}}');
  return cancelled;
}

function readAcknowledgement(reply: BrokerReply): Record<string, unknown> {
  const body = parseJson(reply.body);
  const acknowledgement = isBrokerAcknowledgement(body) ? body : undefined;
  // The publish stream has no headers; its NACKs carry the same hint in the body.
  const retryAfterSeconds = acknowledgement?.retryAfterSeconds;
  const retryAfterMs = parseRetryAfter(reply.retryAfter) ?? (retryAfterSeconds === undefined ? undefined : retryAfterSeconds * 1000);
  if (reply.status < 200 || reply.status >= 300) {
    const reason = acknowledgement?.message ?? messageOf(body) ?? quote(reply.body);
    throw new BrokerResponseError(`The broker at ${reply.url} answered ${reply.status}${reason === '' ? '' : `: ${reason}`}`, {
      status: reply.status,
      reason,
      retryAfterMs,
    });
  }
  if (acknowledgement === undefined) throw unreadable(reply, 'an ACK or NACK');
  if (acknowledgement.acknowledgement === Acknowledgement.NACK) {
    const reason = acknowledgement.message ?? '';
    throw new BrokerResponseError(`The broker at ${reply.url} answered NACK${reason === '' ? ' without a reason' : `: ${reason}`}`, {
      status: reply.status,
      reason,
      retryAfterMs,
    });
  }
  return body as Record<string, unknown>;
}

/** A broker without delivery modes sends no `deliveryMode`: its ACKs are persistent, with an offset. */
function asPublished(value: unknown): PublishedMessage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, topic, offset, deliveryMode = 'persistent', duplicate, fsync } = value as Record<string, unknown>;
  if (typeof id !== 'string' || typeof topic !== 'string') return undefined;
  // The broker's de-duplication answered with the original's ACK (docs/http-api.md); a topic's flush policy wrote the
  // message without fsyncing it first (docs/storage.md#flush-policy-fsync).
  const flag = {
    ...(duplicate === true ? { duplicate: true as const } : {}),
    ...(fsync === 'interval' || fsync === 'never' ? { fsync: fsync as 'interval' | 'never' } : {}),
  };
  if (deliveryMode === 'nonPersistent') return { id, topic, deliveryMode, ...flag };
  if (deliveryMode !== 'persistent') return undefined;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) return undefined;
  return { id, topic, offset, deliveryMode, ...flag };
}

function describes(published: PublishedMessage, sent: OutgoingMessage): boolean {
  return published.id === sent.id && published.topic === sent.topic;
}

function unreadable(reply: BrokerReply, expected: string): BrokerResponseError {
  const reason = `expected ${expected}, got ${quote(reply.body) || 'an empty body'}`;
  return new BrokerResponseError(`The broker at ${reply.url} answered ${reply.status} but ${reason}`, {
    status: reply.status,
    reason,
  });
}

/** Frameworks answer errors of their own (an unknown route, a guard) with a `message` but no acknowledgement. */
function messageOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { message } = body as Record<string, unknown>;
  return typeof message === 'string' ? message : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function quote(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > QUOTED_REPLY_MAX_LENGTH ? `${trimmed.slice(0, QUOTED_REPLY_MAX_LENGTH)}…` : trimmed;
}

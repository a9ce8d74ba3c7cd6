import { DEFAULT_PRIORITY, type MessageHeaders } from '@mmmq/core';
import { JsonOutlineNode } from './json-outline-node';
import { scanJson } from './json-scanner';
import { MalformedEnvelopeError } from './format.errors';

/** A message as this broker stores it: the producer's content bytes plus what the broker knows about them. */
export interface MessageEnvelope {
  id: string;
  topic: string;
  /** Epoch milliseconds at which the broker accepted the message. */
  publishedAt: number;
  headers: MessageHeaders;
  /** Epoch milliseconds (wall clock) after which the message is not delivered; absent: it never expires. */
  expiresAt?: number;
  /** 0–9; absent: the default (4). Written only when not the default. */
  priority?: number;
  /** Epoch ms (wall clock) before which it is not delivered (a scheduled message); absent: at once. */
  dueAt?: number;
  /**
   * A cancellation, not a message: the offset of the scheduled message (same topic) it cancels. Never delivered;
   * written by the broker only (`POST /mmmq/scheduled/cancel`).
   */
  cancels?: number;
  /** The content exactly as the producer sent it: one JSON value, no surrounding whitespace. */
  content: Buffer;
}

/** A stored message read back; entries written by the original Java broker carry no id, time or headers. */
export interface DecodedEnvelope {
  id: string | null;
  topic: string;
  publishedAt: number | null;
  headers: MessageHeaders;
  /** Absent from entries written before expiry existed: those never expire. */
  expiresAt?: number;
  /** Absent: the default (4). */
  priority?: number;
  /** Absent: not scheduled, deliverable at once. */
  dueAt?: number;
  /** Present: a cancellation of the scheduled message at this offset, not a message. */
  cancels?: number;
  /** A view into the stored payload, byte-identical to what the producer sent. */
  content: Buffer;
}

const CLOSING_BRACE = 0x7d;

/**
 * What each payload encoded in this process decodes to. The journal hands a topic the very `Buffer`s encoded at
 * publish, and the log reader finds them in memory, so delivery (every subscription's) reads their fields here
 * instead of scanning the JSON (5.7 % of an embedded app's CPU at saturation). Held weakly: an entry leaves with the
 * last reference to its payload. Payloads read from disk are new objects and are scanned.
 */
const encodedPayloads = new WeakMap<Buffer, DecodedEnvelope>();

/** Stored payloads were bounded at publish; the scan only needs to find spans, never to protect a parser. */
const UNBOUNDED_DEPTH = Number.MAX_SAFE_INTEGER;

/**
 * `{"id":…,"topic":…,"publishedAt":…,"headers":{…}[,"expiresAt":…][,"priority":…][,"dueAt":…],"content":<content>}`.
 * The small fields are serialised; the content is copied in verbatim, so delivery hands consumers exactly the bytes
 * the producer sent. `expiresAt`, `priority` and `dueAt` are written only when set (and not the default), so entries without them
 * are the same bytes as before they existed.
 */
export function encodeEnvelope(envelope: MessageEnvelope): Buffer {
  const head =
    `{"id":${JSON.stringify(envelope.id)},"topic":${JSON.stringify(envelope.topic)},` +
    `"publishedAt":${envelope.publishedAt},"headers":${JSON.stringify(envelope.headers)},` +
    (envelope.expiresAt === undefined ? '' : `"expiresAt":${envelope.expiresAt},`) +
    (envelope.priority === undefined || envelope.priority === DEFAULT_PRIORITY ? '' : `"priority":${envelope.priority},`) +
    (envelope.dueAt === undefined ? '' : `"dueAt":${envelope.dueAt},`) +
    (envelope.cancels === undefined ? '' : `"cancels":${envelope.cancels},`) +
    `"content":`;
  const headBytes = Buffer.byteLength(head);
  const payload = Buffer.allocUnsafe(headBytes + envelope.content.length + 1);
  payload.write(head, 0);
  envelope.content.copy(payload, headBytes);
  payload[payload.length - 1] = CLOSING_BRACE;
  encodedPayloads.set(payload, {
    id: envelope.id,
    topic: envelope.topic,
    publishedAt: envelope.publishedAt,
    // A copy, as parsing the stored bytes would give: the producer's object may change after the publish.
    headers: { ...envelope.headers },
    ...(envelope.expiresAt === undefined ? {} : { expiresAt: envelope.expiresAt }),
    ...(envelope.priority === undefined || envelope.priority === DEFAULT_PRIORITY ? {} : { priority: envelope.priority }),
    ...(envelope.dueAt === undefined ? {} : { dueAt: envelope.dueAt }),
    ...(envelope.cancels === undefined ? {} : { cancels: envelope.cancels }),
    content: payload.subarray(headBytes, payload.length - 1),
  });
  return payload;
}

/**
 * Reads a stored payload without parsing its content. Accepts this broker's envelope and the original Java
 * broker's `{"topic":{"name":"…"},"content":…}`.
 */
export function decodeEnvelope(payload: Buffer): DecodedEnvelope {
  const encoded = encodedPayloads.get(payload);
  if (encoded !== undefined) return encoded;
  const root = scanJson(payload, { maxDepth: UNBOUNDED_DEPTH, outlineLevels: 1 }).root;
  if (root?.kind !== 'object' || root.end < 0) {
    throw new MalformedEnvelopeError('Stored payload is not a JSON object');
  }
  const content = root.member('content');
  if (!content || content.end < 0) throw new MalformedEnvelopeError('Stored payload has no content');
  return {
    id: optionalField(payload, root, 'id', 'string'),
    topic: topicName(field(payload, root.member('topic'), 'topic')),
    publishedAt: optionalField(payload, root, 'publishedAt', 'number'),
    headers: optionalField(payload, root, 'headers', 'object') ?? {},
    ...defined('expiresAt', optionalField(payload, root, 'expiresAt', 'number')),
    ...defined('priority', optionalField(payload, root, 'priority', 'number')),
    ...defined('dueAt', optionalField(payload, root, 'dueAt', 'number')),
    ...defined('cancels', optionalField(payload, root, 'cancels', 'number')),
    content: payload.subarray(content.start, content.end),
  };
}

/** The id and publish time of a stored message: what de-duplication reads back from a topic's log. */
export interface EnvelopeHead {
  id: string | null;
  publishedAt: number | null;
}

const HEAD_ID = Buffer.from('{"id":"');
const HEAD_TOPIC = Buffer.from(',"topic":"');
const HEAD_PUBLISHED_AT = Buffer.from(',"publishedAt":');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/**
 * The id and publish time of a stored payload, read from its head without scanning its content (which may be
 * megabytes): this broker's envelopes begin `{"id":"…","topic":"…","publishedAt":N,` ({@link encodeEnvelope}). Any
 * other payload (the Java broker's, one not laid out so) is decoded whole by {@link decodeEnvelope}. A payload that
 * begins so is taken as written by this broker: its content was checked at publish and the log entry by its checksum.
 *
 * @throws MalformedEnvelopeError when a payload not laid out so is not an envelope either
 */
export function decodeEnvelopeHead(payload: Buffer): EnvelopeHead {
  const head = readHead(payload);
  if (head) return head;
  const { id, publishedAt } = decodeEnvelope(payload);
  return { id, publishedAt };
}

/** Undefined when `payload` does not begin as this broker writes it. */
function readHead(payload: Buffer): EnvelopeHead | undefined {
  if (payload[payload.length - 1] !== CLOSING_BRACE || !startsWith(payload, 0, HEAD_ID)) return undefined;
  const idEnd = stringEnd(payload, HEAD_ID.length);
  if (idEnd < 0 || !startsWith(payload, idEnd, HEAD_TOPIC)) return undefined;
  const topicEnd = stringEnd(payload, idEnd + HEAD_TOPIC.length);
  if (topicEnd < 0 || !startsWith(payload, topicEnd, HEAD_PUBLISHED_AT)) return undefined;
  const atStart = topicEnd + HEAD_PUBLISHED_AT.length;
  const atEnd = payload.indexOf(COMMA, atStart);
  const publishedAt = atEnd <= atStart ? NaN : Number(payload.toString('latin1', atStart, atEnd));
  if (!Number.isSafeInteger(publishedAt)) return undefined;
  try {
    return { id: JSON.parse(payload.toString('utf8', HEAD_ID.length - 1, idEnd)) as string, publishedAt };
  } catch {
    return undefined;
  }
}

function startsWith(payload: Buffer, at: number, prefix: Buffer): boolean {
  return payload.length >= at + prefix.length && payload.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0;
}

/**
 * The index just past the closing quote of the JSON string whose characters start at `from`; -1 when it does not
 * end. UTF-8 continuation bytes are never a quote or a backslash, so bytes are scanned, not characters.
 */
function stringEnd(payload: Buffer, from: number): number {
  for (let at = from; at < payload.length; at++) {
    if (payload[at] === BACKSLASH) at++;
    else if (payload[at] === QUOTE) return at + 1;
  }
  return -1;
}

/** `{name: value}`, or nothing when the field is absent (so decoded envelopes carry no `undefined` fields). */
function defined(name: string, value: number | null): Record<string, number> {
  return value === null ? {} : { [name]: value };
}

interface FieldTypes {
  string: string;
  number: number;
  object: MessageHeaders;
}

function optionalField<K extends keyof FieldTypes>(payload: Buffer, root: JsonOutlineNode, name: string, type: K): FieldTypes[K] | null {
  const node = root.member(name);
  if (!node) return null;
  const value = field(payload, node, name);
  if (typeof value !== type || value === null || Array.isArray(value)) {
    throw new MalformedEnvelopeError(`Stored payload has a ${typeof value} "${name}", expected a ${type}`);
  }
  return value as FieldTypes[K];
}

function field(payload: Buffer, node: JsonOutlineNode | undefined, name: string): unknown {
  if (!node) throw new MalformedEnvelopeError(`Stored payload has no "${name}"`);
  try {
    return JSON.parse(payload.toString('utf8', node.start, node.end));
  } catch (error) {
    throw new MalformedEnvelopeError(`Stored payload has an unreadable "${name}"`, { cause: error });
  }
}

/** This broker stores the name; the Java broker stored its `Topic` record, `{"name":"…"}`. */
function topicName(topic: unknown): string {
  if (typeof topic === 'string') return topic;
  const name = (topic as { name?: unknown } | null)?.name;
  if (typeof name === 'string') return name;
  throw new MalformedEnvelopeError('Stored payload has a topic that is neither a name nor {"name": …}');
}

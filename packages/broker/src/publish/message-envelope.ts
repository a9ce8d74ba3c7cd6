import { DEFAULT_PRIORITY, type MessageHeaders } from '@mmmq/core';
import { JsonOutlineNode } from './json-outline-node';
import { scanJson } from './json-scanner';
import { MalformedEnvelopeError } from './publish.errors';

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
  /** A view into the stored payload, byte-identical to what the producer sent. */
  content: Buffer;
}

const CLOSING_BRACE = 0x7d;

/** Stored payloads were bounded at publish; the scan only needs to find spans, never to protect a parser. */
const UNBOUNDED_DEPTH = Number.MAX_SAFE_INTEGER;

/**
 * `{"id":…,"topic":…,"publishedAt":…,"headers":{…}[,"expiresAt":…][,"priority":…],"content":<content>}`. The small
 * fields are serialised; the content is copied in verbatim, so delivery hands consumers exactly the bytes the
 * producer sent. `expiresAt` and `priority` are written only when set (and not the default), so entries without them
 * are the same bytes as before they existed.
 */
export function encodeEnvelope(envelope: MessageEnvelope): Buffer {
  const head =
    `{"id":${JSON.stringify(envelope.id)},"topic":${JSON.stringify(envelope.topic)},` +
    `"publishedAt":${envelope.publishedAt},"headers":${JSON.stringify(envelope.headers)},` +
    (envelope.expiresAt === undefined ? '' : `"expiresAt":${envelope.expiresAt},`) +
    (envelope.priority === undefined || envelope.priority === DEFAULT_PRIORITY ? '' : `"priority":${envelope.priority},`) +
    `"content":`;
  const headBytes = Buffer.byteLength(head);
  const payload = Buffer.allocUnsafe(headBytes + envelope.content.length + 1);
  payload.write(head, 0);
  envelope.content.copy(payload, headBytes);
  payload[payload.length - 1] = CLOSING_BRACE;
  return payload;
}

/**
 * Reads a stored payload without parsing its content. Accepts this broker's envelope and the original Java
 * broker's `{"topic":{"name":"…"},"content":…}`.
 */
export function decodeEnvelope(payload: Buffer): DecodedEnvelope {
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
    content: payload.subarray(content.start, content.end),
  };
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

import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import {
  assertDeliveryMode,
  assertHeaders,
  assertMessageProperties,
  assertMessageId,
  InvalidMessageError,
  InvalidTopicError,
  MessageHeaders,
  MessageProperties,
  DeliveryMode,
  MmmqValidationError,
  RESERVED_TOPIC_PREFIX,
  Topic,
  type TransportMessage,
} from '@mmmq/core';
import { Inject, Injectable } from '@nestjs/common';
import { MMMQ_HTTP_OPTIONS, ResolvedHttpOptions } from '../mmmq-broker.options';
import { JsonOutlineNode } from './json-outline-node';
import { scanJson } from './json-scanner';

/**
 * One validated message of a publish request, its content still the producer's bytes; `ttlMs` / `expiresAt` /
 * `priority` (MessageProperties) when given.
 */
export interface PublishableMessage extends MessageProperties {
  topic: Topic;
  /** The producer's id, or a UUID the broker assigned. */
  id: string;
  /** True when `id` is the producer's: only those are remembered for de-duplication (a UUID never collides). */
  idFromProducer?: boolean;
  headers: MessageHeaders;
  content: Buffer;
  /** As the producer asked; absent: the topic's default (`TopicPolicies`). */
  deliveryMode?: DeliveryMode;
  /** Set by the broker only: a cancellation of the scheduled message at this offset (see `MessageEnvelope.cancels`). */
  cancels?: number;
}

/** Levels of objects and arrays around `content` in `{"content": …}`. */
const SINGLE_WRAPPER_DEPTH = 1;
/** Levels of objects and arrays around `content` in `{"messages": [{"content": …}]}`. */
const BATCH_WRAPPER_DEPTH = 3;

type JsonObject = Record<string, unknown>;

/** Turns the bytes of a publish request into validated messages, or a 400 naming the first problem. */
@Injectable()
export class PublishRequestParser {
  constructor(@Inject(MMMQ_HTTP_OPTIONS) private readonly options: ResolvedHttpOptions) {}

  /** `{"topic": …, "content": …, "id"?: …, "headers"?: …, "ttlMs"? | "expiresAt"?: …, "priority"?: …, "deliveryMode"?: …}` */
  parseSingle(body: Buffer): PublishableMessage {
    const { value, outline } = this.parseDocument(body, SINGLE_WRAPPER_DEPTH);
    return toPublishable(body, value, outline);
  }

  /**
   * A message of this application's own producer, reached in process: its fields are checked as `parseSingle`
   * checks them, with no JSON document around them to build and parse again. Its content is JSON text the producer
   * libraries made with `JSON.stringify` (`TransportMessage`), so only its nesting is measured here, not its
   * syntax re-checked.
   */
  parseTransportMessage(message: TransportMessage): PublishableMessage {
    const content = Buffer.from(message.content);
    if (scanJson(content, { maxDepth: this.options.maxJsonDepth, outlineLevels: 0 }).tooDeep) throw this.tooDeep();
    return { ...fieldsOf(message), content };
  }

  /** As {@link parseTransportMessage}, for a batch: at most `http.maxBatchMessages`, errors prefixed `messages[i]:`. */
  parseTransportBatch(messages: readonly TransportMessage[]): PublishableMessage[] {
    if (messages.length === 0) throw new InvalidMessageError('A batch must contain at least one message');
    if (messages.length > this.options.maxBatchMessages) {
      throw new InvalidMessageError(`A batch may contain at most ${this.options.maxBatchMessages} messages, got ${messages.length}`);
    }
    return messages.map((message, index) => inContext(`messages[${index}]`, () => this.parseTransportMessage(message)));
  }

  /** `{"messages": [message, …]}`, at least one and at most `http.maxBatchMessages`. */
  parseBatch(body: Buffer): PublishableMessage[] {
    return this.parseEnvelope(body, 'A batch', 1).messages;
  }

  /**
   * A JSON object whose `messages` holds up to `http.maxBatchMessages` messages (as a batch's, at least `min`), and
   * its other fields for the caller to read: a transaction's body.
   */
  parseEnvelope(body: Buffer, what: string, min: number): { fields: Record<string, unknown>; messages: PublishableMessage[] } {
    const { value, outline } = this.parseDocument(body, BATCH_WRAPPER_DEPTH);
    const messages = isObject(value) ? (value.messages ?? (min === 0 ? [] : undefined)) : undefined;
    if (!Array.isArray(messages)) {
      throw new InvalidMessageError(`${what} must be a JSON object {"messages": [message, …]}`);
    }
    if (messages.length < min) throw new InvalidMessageError(`${what} must contain at least one message`);
    if (messages.length > this.options.maxBatchMessages) {
      throw new InvalidMessageError(`${what} may contain at most ${this.options.maxBatchMessages} messages, got ${messages.length}`);
    }
    const nodes = messages.length === 0 ? [] : (memberOf(outline, 'messages').elements ?? []);
    return {
      fields: value as JsonObject,
      messages: messages.map((message, index) => inContext(`messages[${index}]`, () => toPublishable(body, message, nodes[index]))),
    };
  }

  private parseDocument(body: Buffer, wrapperDepth: number): { value: unknown; outline: JsonOutlineNode } {
    if (!isUtf8(body)) throw new InvalidMessageError('Request body is not valid UTF-8');
    const maxDepth = this.options.maxJsonDepth;
    const scan = scanJson(body, { maxDepth: maxDepth + wrapperDepth, outlineLevels: wrapperDepth });
    if (scan.tooDeep) throw this.tooDeep();
    let value: unknown;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch (error) {
      throw new InvalidMessageError(`Request body is not valid JSON: ${(error as Error).message}`, { cause: error });
    }
    if (!scan.root) throw new Error('JSON.parse accepted a document the scanner found empty');
    return { value, outline: scan.root };
  }

  private tooDeep(): InvalidMessageError {
    return new InvalidMessageError(`Message content nests objects and arrays deeper than the limit of ${this.options.maxJsonDepth}`);
  }
}

function toPublishable(body: Buffer, message: unknown, outline: JsonOutlineNode): PublishableMessage {
  if (!isObject(message)) {
    throw new InvalidMessageError('A message must be a JSON object with "topic" and "content"');
  }
  const topic = parseTopic(message.topic);
  if (!Object.hasOwn(message, 'content')) throw new InvalidMessageError('Message field "content" is required');
  const content = memberOf(outline, 'content');
  return { ...fieldsOf(message, topic), content: body.subarray(content.start, content.end) };
}

/** Every field of a message but its content, validated. */
function fieldsOf(
  message: {
    topic?: unknown;
    id?: unknown;
    headers?: unknown;
    deliveryMode?: unknown;
    ttlMs?: unknown;
    expiresAt?: unknown;
    priority?: unknown;
  },
  topic = parseTopic(message.topic),
): Omit<PublishableMessage, 'content'> {
  return {
    topic,
    // Null counts as absent: serialisers such as Jackson write unset fields as null.
    id: message.id == null ? randomUUID() : assertMessageId(message.id),
    idFromProducer: message.id != null,
    headers: message.headers == null ? {} : assertHeaders(message.headers),
    ...assertMessageProperties(message),
    deliveryMode: message.deliveryMode == null ? undefined : assertDeliveryMode(message.deliveryMode),
  };
}

/** `"order.created"`, or the original Java producer's `{"name": "order.created"}`. */
function parseTopic(topic: unknown): Topic {
  if (topic === undefined) throw new InvalidMessageError('Message field "topic" is required');
  const parsed = Topic.of(isObject(topic) ? topic.name : topic);
  if (parsed.isReserved) {
    throw new InvalidTopicError(`Topic ${parsed.name} is reserved: names starting with ${RESERVED_TOPIC_PREFIX} belong to the broker`);
  }
  return parsed;
}

/** Prefixes a validation error with where in the batch it happened, keeping its class (and so its status). */
function inContext<T>(where: string, validate: () => T): T {
  try {
    return validate();
  } catch (error) {
    if (!(error instanceof MmmqValidationError)) throw error;
    const ErrorClass = error.constructor as new (message: string, options: { cause: unknown }) => Error;
    throw new ErrorClass(`${where}: ${error.message}`, { cause: error });
  }
}

function memberOf(outline: JsonOutlineNode, key: string): JsonOutlineNode {
  const member = outline.member(key);
  if (!member) throw new Error(`JSON.parse found "${key}" where the scanner did not`);
  return member;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

import { randomUUID } from 'node:crypto';
import {
  assertDeliveryMode,
  assertHeaders,
  assertMessageId,
  assertMessageProperties,
  InvalidMessageError,
  InvalidTopicError,
  MmmqValidationError,
  Topic,
  type TransportMessage,
} from '@mmmq/core';
import type { ProduceOptions } from './produce-options';

/** A message ready to send: the core's `TransportMessage`, which every transport's publisher takes. */
export type OutgoingMessage = TransportMessage;

const MESSAGE_SHAPE = '{ topic, content, id?, headers?, ttlMs?, expiresAt?, priority?, delayMs?, deliverAt?, deliveryMode? }';

/** The message of `produce(topic, content, options)` or `produce(message)`, not validated yet. */
export function messageFromArguments(topicOrMessage: unknown, content: unknown, options?: ProduceOptions): unknown {
  return typeof topicOrMessage === 'string' ? { ...options, topic: topicOrMessage, content } : topicOrMessage;
}

/**
 * Validates a message as the broker would and assigns a random UUID when it has no id.
 * @throws MmmqValidationError (InvalidTopicError, InvalidMessageError) naming the problem
 */
export function prepareMessage(message: unknown): OutgoingMessage {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new InvalidMessageError(`A message must be an object ${MESSAGE_SHAPE}, got ${typeof message}`);
  }
  const { topic, content, id, headers, deliveryMode, ...rest } = message as Record<string, unknown>;
  return {
    topic: publishableTopic(topic),
    // `null` counts as absent, as on the broker.
    id: id === undefined || id === null ? randomUUID() : assertMessageId(id),
    headers: headers === undefined || headers === null ? undefined : { ...assertHeaders(headers) },
    ...assertMessageProperties(rest),
    content: serialiseContent(content),
    deliveryMode: deliveryMode === undefined || deliveryMode === null ? undefined : assertDeliveryMode(deliveryMode),
  };
}

/**
 * Validates every message of a batch, with errors prefixed `messages[i]:` as the broker does. The messages may
 * name any topics: the broker commits a batch as one journal record, whatever topics it spans.
 * @throws MmmqValidationError naming the index of the first invalid message
 */
export function prepareBatch(messages: unknown): OutgoingMessage[] {
  if (!Array.isArray(messages)) {
    throw new InvalidMessageError(`A batch must be an array of messages ${MESSAGE_SHAPE}, got ${typeof messages}`);
  }
  return messages.map((message: unknown, index) => prepareBatchMessage(message, index));
}

/**
 * Validates the message that will be `messages[index]` of a batch, with an error prefixed `messages[index]:`
 * that keeps its class, so `instanceof InvalidTopicError` still works.
 * @throws MmmqValidationError
 */
export function prepareBatchMessage(message: unknown, index: number): OutgoingMessage {
  try {
    return prepareMessage(message);
  } catch (error) {
    throw atIndex(error, index);
  }
}

function publishableTopic(name: unknown): string {
  const topic = new Topic(name);
  if (topic.isReserved) {
    throw new InvalidTopicError(`Topic ${topic.name} is reserved for the broker (names starting with "__"); publish to another topic`);
  }
  return topic.name;
}

function serialiseContent(content: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(content);
  } catch (error) {
    throw new InvalidMessageError(`Message content cannot be serialised to JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // `JSON.stringify` drops what JSON cannot hold instead of throwing; `null` is the way to send "nothing".
  if (json === undefined) {
    throw new InvalidMessageError(`Message content must be a JSON value (null included), got ${typeof content}`);
  }
  return json;
}

function atIndex(error: unknown, index: number): unknown {
  if (!(error instanceof MmmqValidationError)) return error;
  const ErrorClass = error.constructor as new (message: string, options?: { cause?: unknown }) => Error;
  return new ErrorClass(`messages[${index}]: ${error.message}`, { cause: error });
}

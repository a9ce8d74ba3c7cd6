import { randomUUID } from 'node:crypto';
import {
  assertHeaders,
  assertMessageId,
  InvalidMessageError,
  InvalidTopicError,
  MessageHeaders,
  MmmqValidationError,
  Topic,
} from '@mmmq/core';
import { MixedTopicBatchError } from './errors/mixed-topic-batch.error';

/**
 * A message ready to send: validated, its id fixed and its content serialised once, before the first attempt,
 * so that every retry sends the same id and the same bytes even if the caller mutates its object meanwhile.
 */
export interface OutgoingMessage {
  id: string;
  topic: string;
  headers: MessageHeaders | undefined;
  /** The content as JSON text. */
  content: string;
}

const MESSAGE_SHAPE = '{ topic, content, id?, headers? }';

/**
 * Validates a message as the broker would and assigns a random UUID when it has no id.
 * @throws MmmqValidationError (InvalidTopicError, InvalidMessageError) naming the problem
 */
export function prepareMessage(message: unknown): OutgoingMessage {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new InvalidMessageError(`A message must be an object ${MESSAGE_SHAPE}, got ${typeof message}`);
  }
  const { topic, content, id, headers } = message as Record<string, unknown>;
  return {
    topic: publishableTopic(topic),
    // `null` counts as absent, as on the broker.
    id: id === undefined || id === null ? randomUUID() : assertMessageId(id),
    headers: headers === undefined || headers === null ? undefined : { ...assertHeaders(headers) },
    content: serialiseContent(content),
  };
}

/**
 * Validates every message of a batch, with errors prefixed `messages[i]:` as the broker does, and checks that
 * they all name one topic.
 * @throws MmmqValidationError, MixedTopicBatchError
 */
export function prepareBatch(messages: unknown): OutgoingMessage[] {
  if (!Array.isArray(messages)) {
    throw new InvalidMessageError(`A batch must be an array of messages ${MESSAGE_SHAPE}, got ${typeof messages}`);
  }
  const prepared = messages.map((message: unknown, index) => {
    try {
      return prepareMessage(message);
    } catch (error) {
      throw atIndex(error, index);
    }
  });
  const other = prepared.findIndex((message) => message.topic !== prepared[0].topic);
  if (other >= 0) {
    throw new MixedTopicBatchError(
      `A batch must name a single topic, but messages[0] names ${prepared[0].topic} and messages[${other}] ` +
        `names ${prepared[other].topic}: the broker commits a batch to one topic's log. Send one batch per topic.`,
    );
  }
  return prepared;
}

function publishableTopic(name: unknown): string {
  const topic = new Topic(name);
  if (topic.isReserved) {
    throw new InvalidTopicError(
      `Topic ${topic.name} is reserved for the broker (names starting with "__"); publish to another topic`,
    );
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

/** Keeps the error's class, so `instanceof InvalidTopicError` still works for a message of a batch. */
function atIndex(error: unknown, index: number): unknown {
  if (!(error instanceof MmmqValidationError)) return error;
  const ErrorClass = error.constructor as new (message: string, options?: { cause?: unknown }) => Error;
  return new ErrorClass(`messages[${index}]: ${error.message}`, { cause: error });
}

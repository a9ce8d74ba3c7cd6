import { DeadLetterHeaders, MessageHeaders, Topic } from '@mmmq/core';
import { BrokerEvents } from '../events/broker-events';
import { MmmqBrokerEvent } from '../events/mmmq-broker-event';
import { DecodedEnvelope, encodeEnvelope } from '../format/message-envelope';
import type { TopicQueue } from '../storage/topic-queue';
import { TopicQueueContainer } from '../storage/topic-queue-container';
import type { DeliveryAttempt } from './ledger/slot';
import { deadLetterTopicOf } from './reserved-topics';

export { DeadLetterHeaders } from '@mmmq/core';

export interface DeadLetter {
  envelope: DecodedEnvelope;
  consumerId: string;
  offset: number;
  attempts: number;
  reason: string;
  lastError: string;
  history: readonly DeliveryAttempt[];
}

/** The longest last-error text kept in a dead letter's headers. */
const LAST_ERROR_MAX_LENGTH = 1000;

/** A dead letter ready to be journaled: its topic and stored bytes; `written` once the record holding it is applied. */
export interface PreparedDeadLetter {
  queue: TopicQueue;
  payload: Buffer;
  /** The record holding it is durable and applied, at `at` in the dead-letter topic: tells the listeners. */
  written(at: number): void;
}

/**
 * Turns undeliverable messages into entries of `__dlq.{consumerId}`. It does not append them itself: the
 * subscription journals each with the state that passes the message, in one record (see SubscriptionDeadLetters),
 * then calls `written`, which emits `mmmq.message.dead-lettered` (when someone listens).
 */
export class DeadLetterWriter {
  constructor(
    private readonly queues: TopicQueueContainer,
    private readonly events = new BrokerEvents(),
  ) {}

  /** Encodes the dead letter and opens its topic, refusing (StorageUnavailableError) while that topic refuses writes. */
  async prepare(letter: DeadLetter): Promise<PreparedDeadLetter> {
    const { envelope } = letter;
    const id = envelope.id ?? `${envelope.topic}@${letter.offset}`;
    const headers: MessageHeaders = {
      ...envelope.headers,
      [DeadLetterHeaders.ORIGINAL_TOPIC]: envelope.topic,
      [DeadLetterHeaders.ORIGINAL_OFFSET]: letter.offset,
      [DeadLetterHeaders.ORIGINAL_ID]: id,
      [DeadLetterHeaders.CONSUMER_ID]: letter.consumerId,
      [DeadLetterHeaders.ATTEMPTS]: letter.attempts,
      [DeadLetterHeaders.REASON]: letter.reason,
      [DeadLetterHeaders.LAST_ERROR]: letter.lastError.slice(0, LAST_ERROR_MAX_LENGTH),
      [DeadLetterHeaders.FAILED_AT]: new Date().toISOString(),
      [DeadLetterHeaders.DELIVERIES]: JSON.stringify(letter.history),
    };
    const deadLetterTopic = deadLetterTopicOf(letter.consumerId);
    const queue = await this.queues.getOrCreate(Topic.of(deadLetterTopic));
    if (!queue.writable) await queue.assertWritable();
    const payload = encodeEnvelope({
      id,
      topic: envelope.topic,
      publishedAt: envelope.publishedAt ?? Date.now(),
      headers,
      // Kept, so a redrive keeps the precedence; `expiresAt` is not: a dead letter (and its redrive) never expires.
      ...(envelope.priority === undefined ? {} : { priority: envelope.priority }),
      content: envelope.content,
    });
    const written = (at: number) =>
      this.events.emit(MmmqBrokerEvent.MESSAGE_DEAD_LETTERED, () => ({
        consumerId: letter.consumerId,
        topic: envelope.topic,
        offset: letter.offset,
        id: envelope.id,
        reason: letter.reason,
        attempts: letter.attempts,
        lastError: letter.lastError,
        deadLetterTopic,
        deadLetterOffset: at,
      }));
    return { queue, payload, written };
  }
}

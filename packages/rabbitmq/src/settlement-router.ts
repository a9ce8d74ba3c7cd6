import type { ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import { Acknowledgement, ConsumerAcknowledgement, DeadLetterHeaders } from '@mmmq/core';
import type { DeclaredTopology } from './declared-topology';
import { publishConfirmed } from './confirmed-publish';
import { InternalHeaders, RABBITMQ_HEADERS, ReceivedDelivery } from './delivery-mapping';
import type { ResolvedRabbitMqOptions } from './rabbitmq-transport.options';
import { declareDeadLetterRoute, declareRetryQueue, type ListenerNames } from './topology';

/** Why a message became a dead letter (`mmmq-dlq-reason`), as on the MMMQ broker. */
export type DeadLetterReason = 'NACK' | 'REJECTED' | 'EXPIRED';

/** The longest last-error text kept in a dead letter's headers, as on the MMMQ broker. */
const LAST_ERROR_MAX_LENGTH = 1000;

/**
 * Carries out a handler's answer on RabbitMQ. ACK → `basic.ack`. NACK → the message is published again (to a retry
 * queue that dead-letters it back after the delay, or straight back to the queue) and only then acknowledged, so a
 * crash in between duplicates it but never loses it. Out of retries, or `retry: false` → published to the dead-letter
 * queue with MMMQ's dead-letter headers, then acknowledged. The retry queue, or the dead-letter queue and binding, is
 * declared right before each publish: a confirm does not say the message was routed anywhere.
 */
export class SettlementRouter {
  constructor(
    private readonly options: ResolvedRabbitMqOptions,
    private readonly consumerId: string,
    private readonly names: ListenerNames,
    private readonly declared: DeclaredTopology,
  ) {}

  async settle(
    channel: ConfirmChannel,
    message: ConsumeMessage,
    received: ReceivedDelivery,
    answer: ConsumerAcknowledgement,
  ): Promise<void> {
    if (answer.acknowledgement === Acknowledgement.ACK) return channel.ack(message);
    const lastError = answer.message ?? 'NACK';
    if (answer.retry === false) return this.deadLetter(channel, message, received, 'REJECTED', lastError);
    if (received.nacks + 1 >= this.options.retry.maxDeliveries) return this.deadLetter(channel, message, received, 'NACK', lastError);
    const { delaysMs } = this.options.retry;
    const delayMs = answer.delayMs ?? delaysMs[Math.min(received.nacks, delaysMs.length - 1)];
    const target = delayMs > 0 ? await declareRetryQueue(channel, this.names.queue, delayMs, this.declared) : this.names.queue;
    const { delivery } = received;
    const headers = {
      ...ownHeaders(message),
      [InternalHeaders.TOPIC]: delivery.topic,
      [InternalHeaders.NACKS]: received.nacks + 1,
      [InternalHeaders.DELIVERIES]: delivery.deliveryCount,
    };
    const expiration = delivery.expiresAt === undefined ? {} : { expiration: String(Math.max(1, delivery.expiresAt - Date.now())) };
    await publishConfirmed(
      channel,
      '',
      target,
      message.content,
      { ...copiedProperties(message), headers, ...expiration },
      this.options.confirmTimeoutMs,
    );
    channel.ack(message);
  }

  /** Publishes `message` to the dead-letter queue with MMMQ's dead-letter headers, then acknowledges it. */
  async deadLetter(
    channel: ConfirmChannel,
    message: ConsumeMessage,
    received: ReceivedDelivery | undefined,
    reason: DeadLetterReason,
    lastError: string,
  ): Promise<void> {
    const delivery = received?.delivery;
    const headers: Record<string, unknown> = {
      ...ownHeaders(message),
      [DeadLetterHeaders.ORIGINAL_TOPIC]: delivery?.topic ?? message.fields.routingKey,
      [DeadLetterHeaders.ORIGINAL_OFFSET]: -1,
      [DeadLetterHeaders.ORIGINAL_ID]: delivery?.id ?? String(message.properties.messageId),
      [DeadLetterHeaders.CONSUMER_ID]: this.consumerId,
      [DeadLetterHeaders.ATTEMPTS]: delivery?.deliveryCount ?? 1,
      [DeadLetterHeaders.REASON]: reason,
      [DeadLetterHeaders.LAST_ERROR]: lastError.slice(0, LAST_ERROR_MAX_LENGTH),
      [DeadLetterHeaders.FAILED_AT]: new Date().toISOString(),
    };
    // A dead letter never expires (as on the MMMQ broker): no `expiration`, and it is kept persistent.
    delete headers[InternalHeaders.EXPIRES_AT];
    const options: Options.Publish = { ...copiedProperties(message), persistent: true, headers };
    // A confirm does not say it was routed: without its queue and binding the dead letter would vanish, then be acked.
    await declareDeadLetterRoute(channel, this.names, this.declared);
    await publishConfirmed(
      channel,
      this.names.deadLetterExchange,
      this.names.queue,
      message.content,
      options,
      this.options.confirmTimeoutMs,
    );
    channel.ack(message);
  }
}

/** The producer's headers and the publish time; not the retry bookkeeping nor what RabbitMQ added. */
function ownHeaders(message: ConsumeMessage): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries((message.properties.headers ?? {}) as Record<string, unknown>)) {
    if (RABBITMQ_HEADERS.test(name) || name === InternalHeaders.NACKS || name === InternalHeaders.DELIVERIES) continue;
    headers[name] = value;
  }
  return headers;
}

function copiedProperties(message: ConsumeMessage): Options.Publish {
  const { messageId, timestamp, contentType, priority, deliveryMode } = message.properties as unknown as Record<string, unknown>;
  return {
    // A nonPersistent message stays one (AMQP delivery mode 1) through its retries.
    persistent: deliveryMode !== 1,
    ...(typeof messageId === 'string' ? { messageId } : {}),
    ...(typeof timestamp === 'number' ? { timestamp } : {}),
    ...(typeof contentType === 'string' ? { contentType } : {}),
    ...(typeof priority === 'number' ? { priority } : {}),
  };
}

import type { Channel, Options } from 'amqplib';
import { MAX_NACK_DELAY_MS, type BacklogLimit } from '@mmmq/core';
import type { DeclaredTopology } from './declared-topology';
import type { ResolvedRabbitMqOptions } from './rabbitmq-transport.options';

/** The names RabbitMQ objects of one listener get (docs/scaling.md, "The mapping"). */
export interface ListenerNames {
  /** The topic exchange producers publish to. */
  exchange: string;
  /** The direct exchange dead letters go through: `{exchange}.dlx`. */
  deadLetterExchange: string;
  /** The consumer's quorum queue: `{queuePrefix}{consumerId}`. */
  queue: string;
  /** Its dead letters: `{queue}.dlq`, bound to the dead-letter exchange with the key `{queue}`. */
  deadLetterQueue: string;
}

export function exchangeNames(options: ResolvedRabbitMqOptions): { exchange: string; deadLetterExchange: string } {
  return { exchange: options.exchange, deadLetterExchange: `${options.exchange}.dlx` };
}

export function listenerNames(options: ResolvedRabbitMqOptions, consumerId: string): ListenerNames {
  const queue = `${options.queuePrefix}${consumerId}`;
  return { ...exchangeNames(options), queue, deadLetterQueue: `${queue}.dlq` };
}

/** RabbitMQ's limit on queue (and exchange) names: a short string of at most 255 bytes. */
export const MAX_NAME_BYTES = 255;

/**
 * Why a listener's queue names would be too long for RabbitMQ, or undefined when they fit: the longest is a retry
 * queue for the longest delay a NACK may ask for (`{queue}.retry.{MAX_NACK_DELAY_MS}`), longer than `{queue}.dlq`.
 */
export function queueNameTooLong(options: ResolvedRabbitMqOptions, consumerId: string): string | undefined {
  const { queue } = listenerNames(options, consumerId);
  const longest = retryQueueName(queue, MAX_NACK_DELAY_MS);
  const bytes = Buffer.byteLength(longest, 'utf8');
  if (bytes <= MAX_NAME_BYTES) return undefined;
  return (
    `consumerId: its RabbitMQ queue names would exceed RabbitMQ's ${MAX_NAME_BYTES}-byte limit (the longest, ` +
    `queuePrefix + consumerId + ".retry.${MAX_NACK_DELAY_MS}", is ${bytes} bytes): shorten the consumerId or queuePrefix ` +
    `by ${bytes - MAX_NAME_BYTES} bytes`
  );
}

/** Where a NACKed message waits `delayMs` before it is dead-lettered back into `queue`. */
export function retryQueueName(queue: string, delayMs: number): string {
  return `${queue}.retry.${delayMs}`;
}

// Quorum queues dead-letter at most once unless told otherwise; at-least-once needs reject-publish overflow.
const AT_LEAST_ONCE_DEAD_LETTERING = { 'x-dead-letter-strategy': 'at-least-once', 'x-overflow': 'reject-publish' };
const QUORUM = { 'x-queue-type': 'quorum' };

export async function declareExchanges(channel: Channel, options: ResolvedRabbitMqOptions, declared: DeclaredTopology): Promise<void> {
  const { exchange, deadLetterExchange } = exchangeNames(options);
  declared.exchanges.add(exchange).add(deadLetterExchange);
  await channel.assertExchange(exchange, 'topic', { durable: true });
  await channel.assertExchange(deadLetterExchange, 'direct', { durable: true });
}

/** Declares the exchanges, the consumer's queue with its binding and its dead-letter queue. Idempotent. */
export async function declareListener(
  channel: Channel,
  options: ResolvedRabbitMqOptions,
  names: ListenerNames,
  bindingKey: string,
  backlogLimit: BacklogLimit | undefined,
  declared: DeclaredTopology,
): Promise<void> {
  await declareExchanges(channel, options, declared);
  declared.queues.add(names.queue);
  await declareDeadLetterRoute(channel, names, declared);
  const queueArguments: Options.AssertQueue['arguments'] = {
    ...QUORUM,
    ...AT_LEAST_ONCE_DEAD_LETTERING,
    'x-dead-letter-exchange': names.deadLetterExchange,
    'x-dead-letter-routing-key': names.queue,
    'x-delivery-limit': options.retry.deliveryLimit,
    ...(backlogLimit === undefined ? {} : { 'x-max-length': backlogLimit.maxBacklog }),
  };
  await channel.assertQueue(names.queue, { durable: true, arguments: queueArguments });
  await channel.bindQueue(names.queue, names.exchange, bindingKey);
}

/**
 * Declares the dead-letter exchange, `{queue}.dlq` and its binding. Idempotent; run before each dead-letter publish
 * too, so a queue or binding deleted while connected is back before a dead letter (then acked) goes to it.
 */
export async function declareDeadLetterRoute(channel: Channel, names: ListenerNames, declared: DeclaredTopology): Promise<void> {
  declared.exchanges.add(names.deadLetterExchange);
  declared.queues.add(names.deadLetterQueue);
  await channel.assertExchange(names.deadLetterExchange, 'direct', { durable: true });
  await channel.assertQueue(names.deadLetterQueue, { durable: true, arguments: { ...QUORUM } });
  await channel.bindQueue(names.deadLetterQueue, names.deadLetterExchange, names.queue);
}

/** Declares the queue where messages wait `delayMs` before going back to `queue` (one per distinct delay, kept). */
export async function declareRetryQueue(channel: Channel, queue: string, delayMs: number, declared: DeclaredTopology): Promise<string> {
  const name = retryQueueName(queue, delayMs);
  declared.queues.add(name);
  await channel.assertQueue(name, {
    durable: true,
    arguments: {
      ...QUORUM,
      ...AT_LEAST_ONCE_DEAD_LETTERING,
      'x-message-ttl': delayMs,
      'x-dead-letter-exchange': '',
      'x-dead-letter-routing-key': queue,
      // No x-expires: a retry queue may hold messages waiting for room in a full queue, and expiring it would lose them.
    },
  });
  return name;
}

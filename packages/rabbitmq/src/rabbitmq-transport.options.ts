import { BackoffOptions, DEFAULT_BACKOFF, MAX_NACK_DELAY_MS, MAX_TIMER_MS, optionChecks } from '@mmmq/core';
import { InvalidRabbitMqOptionsError } from './errors/invalid-rabbitmq-options.error';

/** The durable topic exchange producers publish to. */
export const DEFAULT_EXCHANGE = 'mmmq';
/** Queue name = prefix + consumerId. */
export const DEFAULT_QUEUE_PREFIX = '';
/**
 * Unacknowledged messages per listener when `prefetch` is not set (at least the listener's `concurrency`): enough
 * to keep a listener busy between round trips (one message per round trip runs at 5–20 % of what RabbitMQ
 * delivers, docs/scaling.md "What the switch costs"); a listener with `concurrency` 1 still handles them in order.
 */
export const DEFAULT_PREFETCH = 100;
/** 1 delivery + the MMMQ broker's 3 NACK retries (`delivery.maxNackRetries`), then the dead-letter queue. */
export const DEFAULT_MAX_DELIVERIES = 4;
/** Wait before NACK retry 1, 2, 3 (the last one repeats): core's backoff, 1 s × 2, without jitter (one retry queue per delay). */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1000, 2000, 4000];
/**
 * Deliveries of one message without any NACK (consumer crashes, dropped connections) after which RabbitMQ itself
 * dead-letters it (the quorum queue's `x-delivery-limit`), so a message that kills its consumer cannot loop forever.
 */
export const DEFAULT_DELIVERY_LIMIT = 20;
/** How long a publish may wait for a connection and then for RabbitMQ's confirm. */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 30_000;
/** How long one TCP/AMQP connection attempt may take. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Reconnect waits: 250 ms × 2 up to 10 s, minus up to 20 % jitter (core's backoff). */
export const DEFAULT_RECONNECT_BACKOFF: BackoffOptions = { ...DEFAULT_BACKOFF, initialMs: 250, maxMs: 10_000 };

export interface RabbitMqRetryOptions {
  /** Deliveries a message gets while it is NACKed before it is dead-lettered. Default {@link DEFAULT_MAX_DELIVERIES}. */
  maxDeliveries?: number;
  /** Wait before each NACK retry (a NACK's `delayMs` wins). Default {@link DEFAULT_RETRY_DELAYS_MS}. */
  delaysMs?: readonly number[];
  /** Default {@link DEFAULT_DELIVERY_LIMIT}. */
  deliveryLimit?: number;
}

export interface RabbitMqTransportOptions {
  /** `amqp://` or `amqps://` URLs; several = nodes of one cluster, tried in turn. */
  url: string | readonly string[];
  /** Default {@link DEFAULT_EXCHANGE}. */
  exchange?: string;
  /** Default {@link DEFAULT_QUEUE_PREFIX}. */
  queuePrefix?: string;
  retry?: RabbitMqRetryOptions;
  /** Unacknowledged messages per listener. Default {@link DEFAULT_PREFETCH}, or the listener's `concurrency` when larger. */
  prefetch?: number;
  /** Refuse a publish no queue is bound for (`mandatory`) with TransportRejectedError. Default false: it is confirmed and dropped. */
  rejectUnroutable?: boolean;
  /** Default {@link DEFAULT_CONFIRM_TIMEOUT_MS}. */
  confirmTimeoutMs?: number;
  /** Default {@link DEFAULT_CONNECT_TIMEOUT_MS}. */
  connectTimeoutMs?: number;
  /** Default {@link DEFAULT_RECONNECT_BACKOFF}. */
  reconnect?: Partial<BackoffOptions>;
}

export interface ResolvedRabbitMqOptions {
  urls: readonly string[];
  exchange: string;
  queuePrefix: string;
  retry: { maxDeliveries: number; delaysMs: readonly number[]; deliveryLimit: number };
  prefetch: number | undefined;
  rejectUnroutable: boolean;
  confirmTimeoutMs: number;
  connectTimeoutMs: number;
  reconnect: BackoffOptions;
}

const OPTIONS = new Set([
  'url',
  'exchange',
  'queuePrefix',
  'retry',
  'prefetch',
  'rejectUnroutable',
  'confirmTimeoutMs',
  'connectTimeoutMs',
  'reconnect',
]);
const RETRY_OPTIONS = new Set(['maxDeliveries', 'delaysMs', 'deliveryLimit']);
const RECONNECT_OPTIONS = new Set(['initialMs', 'multiplier', 'maxMs', 'jitter']);
// AMQP short strings: exchange and queue names are at most 255 bytes; room is kept for `.retry.{delay}` suffixes.
const NAME_MAX_LENGTH = 200;
const NAME = /^[A-Za-z0-9_.:-]*$/;
/** RabbitMQ's 16-bit prefetch count. */
const MAX_PREFETCH = 65_535;
const checks = optionChecks(InvalidRabbitMqOptionsError);

/** Validates the options of `new RabbitMqTransport(…)`, naming the option at fault, and fills in the defaults. */
export function resolveRabbitMqOptions(input: unknown): ResolvedRabbitMqOptions {
  const options = checks.plainObject('RabbitMqTransport options', input);
  checks.refuseUnknownFields('RabbitMqTransport options', options, OPTIONS);
  const retry = checks.plainObject('retry', options.retry ?? {});
  checks.refuseUnknownFields('retry', retry, RETRY_OPTIONS);
  const reconnect = checks.plainObject('reconnect', options.reconnect ?? {});
  checks.refuseUnknownFields('reconnect', reconnect, RECONNECT_OPTIONS);
  return {
    urls: urls(options.url),
    exchange: name('exchange', options.exchange ?? DEFAULT_EXCHANGE, false),
    queuePrefix: name('queuePrefix', options.queuePrefix ?? DEFAULT_QUEUE_PREFIX, true),
    retry: {
      maxDeliveries: checks.positiveInteger('retry.maxDeliveries', retry.maxDeliveries ?? DEFAULT_MAX_DELIVERIES, 1000),
      delaysMs: delays(retry.delaysMs ?? DEFAULT_RETRY_DELAYS_MS),
      deliveryLimit: checks.positiveInteger('retry.deliveryLimit', retry.deliveryLimit ?? DEFAULT_DELIVERY_LIMIT, 1000),
    },
    prefetch: options.prefetch === undefined ? undefined : checks.positiveInteger('prefetch', options.prefetch, MAX_PREFETCH),
    rejectUnroutable: boolean('rejectUnroutable', options.rejectUnroutable ?? false),
    confirmTimeoutMs: checks.positiveInteger('confirmTimeoutMs', options.confirmTimeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS, MAX_TIMER_MS),
    connectTimeoutMs: checks.positiveInteger('connectTimeoutMs', options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS, MAX_TIMER_MS),
    reconnect: backoff(reconnect),
  };
}

function urls(value: unknown): string[] {
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  if (list.length === 0) throw new InvalidRabbitMqOptionsError('url must name at least one amqp:// or amqps:// URL, got []');
  return list.map((url, index) => {
    const where = Array.isArray(value) ? `url[${index}]` : 'url';
    const text = checks.nonBlankString(where, url);
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch (error) {
      throw new InvalidRabbitMqOptionsError(`${where} is not a URL: ${JSON.stringify(text)}`, { cause: error });
    }
    if (parsed.protocol !== 'amqp:' && parsed.protocol !== 'amqps:') {
      throw new InvalidRabbitMqOptionsError(
        `${where} must be an amqp:// or amqps:// URL, got the protocol ${JSON.stringify(parsed.protocol)}`,
      );
    }
    return text;
  });
}

function name(option: string, value: unknown, mayBeEmpty: boolean): string {
  const text = mayBeEmpty && value === '' ? '' : checks.nonBlankString(option, value);
  if (text.length > NAME_MAX_LENGTH || !NAME.test(text) || text.startsWith('amq.')) {
    throw new InvalidRabbitMqOptionsError(
      `${option} must be at most ${NAME_MAX_LENGTH} characters of A-Z a-z 0-9 _ . : - and not start with "amq." (reserved by RabbitMQ), got ${JSON.stringify(text)}`,
    );
  }
  return text;
}

function delays(value: unknown): number[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new InvalidRabbitMqOptionsError(`retry.delaysMs must be a non-empty array of delays in ms, got ${JSON.stringify(value)}`);
  }
  return value.map((delay, index) => checks.nonNegativeInteger(`retry.delaysMs[${index}]`, delay, MAX_NACK_DELAY_MS));
}

function boolean(option: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new InvalidRabbitMqOptionsError(`${option} must be a boolean, got ${JSON.stringify(value)}`);
  return value;
}

function backoff(input: Record<string, unknown>): BackoffOptions {
  const merged = { ...DEFAULT_RECONNECT_BACKOFF, ...input };
  const { initialMs, multiplier, maxMs, jitter } = merged;
  if (typeof multiplier !== 'number' || !(multiplier >= 1)) {
    throw new InvalidRabbitMqOptionsError(`reconnect.multiplier must be a number ≥ 1, got ${JSON.stringify(multiplier)}`);
  }
  if (typeof jitter !== 'number' || !(jitter >= 0 && jitter < 1)) {
    throw new InvalidRabbitMqOptionsError(`reconnect.jitter must be a number from 0 to below 1, got ${JSON.stringify(jitter)}`);
  }
  return {
    initialMs: checks.positiveInteger('reconnect.initialMs', initialMs, MAX_TIMER_MS),
    multiplier,
    maxMs: checks.positiveInteger('reconnect.maxMs', maxMs, MAX_TIMER_MS),
    jitter,
  };
}

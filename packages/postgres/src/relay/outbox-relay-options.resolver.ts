import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { describeValue, MAX_TIMER_MS, optionChecks } from '@mmmq/core';
import { Producer, type MmmqProducerOptions } from '@mmmq/producer';
import type { PoolConfig } from 'pg';
import { InvalidOutboxOptionsError } from '../errors/invalid-outbox-options.error';
import { DEFAULT_SCHEMA } from '../migrations/migrate';
import { quoteIdentifier } from '../sql/identifier';
import {
  DEFAULT_RELAY_BATCH_SIZE,
  DEFAULT_RELAY_LEASE_MS,
  DEFAULT_RELAY_POLL_INTERVAL_MS,
  DEFAULT_RELAY_RECONNECT_DELAY_MS,
  DEFAULT_RELAY_RETRY_INITIAL_MS,
  DEFAULT_RELAY_RETRY_MAX_MS,
  DEFAULT_OUTBOX_RETENTION_BATCH_SIZE,
  DEFAULT_OUTBOX_RETENTION_INTERVAL_MS,
  DEFAULT_OUTBOX_RETENTION_MAX_AGE_MS,
  OutboxRelayOptions,
} from './outbox-relay.options';
import { relayProducerOptions } from './relay-producer-options';

/** Relay options after defaults are applied and validation passed. */
export interface ResolvedRelayOptions {
  connection: PoolConfig;
  producer: MmmqProducerOptions | Producer;
  schema: string;
  batchSize: number;
  leaseMs: number;
  pollIntervalMs: number;
  orderByAggregate: boolean;
  retry: { initialMs: number; maxMs: number };
  reconnectDelayMs: number;
  retention: { maxAgeMs: number; intervalMs: number; batchSize: number } | undefined;
  relayId: string;
}

/** Largest batch: the broker's default `http.maxBatchMessages`. */
export const MAX_RELAY_BATCH_SIZE = 1000;
const MIN_LEASE_MS = 100;

const KNOWN = new Set<keyof OutboxRelayOptions>([
  'connection',
  'producer',
  'schema',
  'batchSize',
  'leaseMs',
  'pollIntervalMs',
  'orderByAggregate',
  'retry',
  'reconnectDelayMs',
  'retention',
  'relayId',
]);
const { positiveInteger, integerInRange, plainObject, refuseUnknownFields, nonBlankString, oneOf } =
  optionChecks(InvalidOutboxOptionsError);

/**
 * Applies defaults and checks every option, naming it (`relay.leaseMs`), so a typo fails at start-up.
 * @param where the options' name in messages: `relay` inside the module's options
 * @throws InvalidOutboxOptionsError
 */
export function resolveRelayOptions(options: unknown, where = 'relay'): ResolvedRelayOptions {
  const given = plainObject(where, options) as Partial<OutboxRelayOptions>;
  refuseUnknownFields(where, given, KNOWN);
  const retry = plainObject(`${where}.retry`, given.retry ?? {});
  refuseUnknownFields(`${where}.retry`, retry, new Set(['initialMs', 'maxMs']));
  const initialMs = positiveInteger(`${where}.retry.initialMs`, retry.initialMs ?? DEFAULT_RELAY_RETRY_INITIAL_MS, MAX_TIMER_MS);
  const maxMs = positiveInteger(`${where}.retry.maxMs`, retry.maxMs ?? Math.max(initialMs, DEFAULT_RELAY_RETRY_MAX_MS), MAX_TIMER_MS);
  if (maxMs < initialMs)
    throw new InvalidOutboxOptionsError(`${where}.retry.maxMs (${maxMs}) must be at least retry.initialMs (${initialMs})`);
  const leaseMs = integerInRange(`${where}.leaseMs`, given.leaseMs ?? DEFAULT_RELAY_LEASE_MS, MIN_LEASE_MS, MAX_TIMER_MS);
  return {
    connection: connection(`${where}.connection`, given.connection),
    producer: producer(where, given.producer, leaseMs),
    schema: schema(`${where}.schema`, given.schema ?? DEFAULT_SCHEMA),
    batchSize: positiveInteger(`${where}.batchSize`, given.batchSize ?? DEFAULT_RELAY_BATCH_SIZE, MAX_RELAY_BATCH_SIZE),
    leaseMs,
    pollIntervalMs: positiveInteger(`${where}.pollIntervalMs`, given.pollIntervalMs ?? DEFAULT_RELAY_POLL_INTERVAL_MS, MAX_TIMER_MS),
    orderByAggregate: oneOf(`${where}.orderByAggregate`, given.orderByAggregate ?? false, [true, false]),
    retry: { initialMs, maxMs },
    reconnectDelayMs: positiveInteger(
      `${where}.reconnectDelayMs`,
      given.reconnectDelayMs ?? DEFAULT_RELAY_RECONNECT_DELAY_MS,
      MAX_TIMER_MS,
    ),
    retention: retention(`${where}.retention`, given.retention),
    relayId: given.relayId === undefined ? defaultRelayId() : nonBlankString(`${where}.relayId`, given.relayId),
  };
}

function connection(name: string, value: unknown): PoolConfig {
  if (typeof value === 'string' && value.trim() !== '') return { connectionString: value };
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as PoolConfig;
  throw new InvalidOutboxOptionsError(`${name} is required: a connection string or pg pool settings, got ${describeValue(value)}`);
}

function producer(where: string, value: unknown, leaseMs: number): MmmqProducerOptions | Producer {
  // A Producer of the caller's own: its settings are not visible, so fitting the lease is up to the caller.
  if (value instanceof Producer) return value;
  // The producer's own resolver checks the fields when the relay makes it.
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return relayProducerOptions(where, value as MmmqProducerOptions, leaseMs);
  }
  throw new InvalidOutboxOptionsError(
    `${where}.producer is required: producer options ({ broker: "http://…" }) or a Producer, got ${describeValue(value)}`,
  );
}

function schema(name: string, value: unknown): string {
  try {
    quoteIdentifier(name, value as string);
  } catch (error) {
    throw new InvalidOutboxOptionsError((error as Error).message, { cause: error });
  }
  return value as string;
}

function retention(name: string, value: unknown): ResolvedRelayOptions['retention'] {
  if (value === false) return undefined;
  const given = plainObject(name, value ?? {});
  refuseUnknownFields(name, given, new Set(['maxAgeMs', 'intervalMs', 'batchSize']));
  return {
    maxAgeMs: positiveInteger(`${name}.maxAgeMs`, given.maxAgeMs ?? DEFAULT_OUTBOX_RETENTION_MAX_AGE_MS),
    intervalMs: positiveInteger(`${name}.intervalMs`, given.intervalMs ?? DEFAULT_OUTBOX_RETENTION_INTERVAL_MS, MAX_TIMER_MS),
    batchSize: positiveInteger(`${name}.batchSize`, given.batchSize ?? DEFAULT_OUTBOX_RETENTION_BATCH_SIZE),
  };
}

function defaultRelayId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

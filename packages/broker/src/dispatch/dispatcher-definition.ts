import { assertConsumerId, Host, InvalidConsumerIdError, MmmqValidationError, SigningSecret, Topic, TopicPattern } from '@mmmq/core';
import { deadLetterTopicOf, redriveTopicOf } from './reserved-topics';

/** Where a new subscription starts when it has no checkpoint yet. */
export type StartFrom = 'earliest' | 'latest';
/** New dispatchers catch up with everything retained unless told otherwise. */
export const DEFAULT_START_FROM: StartFrom = 'earliest';

/** Messages per push unless the consumer asks for batches. */
export const DEFAULT_BATCH_SIZE = 1;
/** The largest batch a consumer may ask for. */
export const MAX_BATCH_SIZE = 1000;
/** Pushes of one subscription in flight at once unless the consumer asks for more. */
export const DEFAULT_MAX_IN_FLIGHT = 1;
/** The most pushes of one subscription a consumer may ask to have in flight. */
export const MAX_MAX_IN_FLIGHT = 16;

/** One push consumer: every topic matching `pattern` is delivered, in order, to `host`. */
export interface DispatcherDefinition {
  consumerId: string;
  host: Host;
  pattern: TopicPattern;
  startFrom: StartFrom;
  /**
   * Up to this many messages per push. Above 1 the consumer must serve `POST /mmmq/messages/batch`; it is
   * the consumer's to ask for (it is what makes the batched variant negotiated). Default {@link DEFAULT_BATCH_SIZE}.
   */
  batchSize: number;
  /**
   * Pushes of one subscription in flight at once. Above 1 every push carries `mmmq-push-session` and
   * `mmmq-push-sequence` and the consumer must handle the pushes of a session in sequence order; it is the
   * consumer's to ask for. Default {@link DEFAULT_MAX_IN_FLIGHT}.
   */
  maxInFlight: number;
  /**
   * With a secret, every push is signed (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
   * `webhook-signature`). Stored in `dispatchers.json`, never shown by the API or logged. Default none (unsigned).
   */
  signingSecret?: SigningSecret;
}

/** The JSON shape of a definition as the dispatcher API shows it: `signed` instead of the secret. */
export interface DispatcherDefinitionJson {
  consumerId: string;
  host: { protocol: string; address: string; port: number };
  pattern: string;
  startFrom: StartFrom;
  batchSize: number;
  maxInFlight: number;
  /** Present (true) when the pushes are signed. */
  signed?: true;
}

/** The JSON shape of a definition in `dispatchers.json`, and as given to the dispatcher API: with the secret. */
export interface StoredDispatcherDefinitionJson extends Omit<DispatcherDefinitionJson, 'signed'> {
  signingSecret?: string;
}

const KNOWN_FIELDS = new Set(['consumerId', 'host', 'pattern', 'startFrom', 'batchSize', 'maxInFlight', 'signingSecret']);

/** Validates a definition from JSON; `where` names it in the error (e.g. `dispatchers.json entry 2`). */
export function parseDispatcherDefinition(input: unknown, where: string): DispatcherDefinition {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new MmmqValidationError(`${where}: a dispatcher must be a JSON object with consumerId, host and pattern`);
  }
  const record = input as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !KNOWN_FIELDS.has(key));
  if (unknown.length > 0) throw new MmmqValidationError(`${where}: unknown field(s) ${unknown.join(', ')}`);
  for (const field of ['consumerId', 'host', 'pattern']) {
    if (record[field] === undefined) throw new MmmqValidationError(`${where}: missing field ${field}`);
  }
  try {
    return {
      consumerId: parseConsumerId(record.consumerId),
      host: Host.parse(record.host),
      pattern: new TopicPattern(record.pattern),
      startFrom: parseStartFrom(record.startFrom),
      batchSize: parseBatchSize(record.batchSize),
      maxInFlight: parseMaxInFlight(record.maxInFlight),
      ...(record.signingSecret === undefined ? {} : { signingSecret: SigningSecret.parse(record.signingSecret) }),
    };
  } catch (error) {
    if (error instanceof MmmqValidationError) throw new MmmqValidationError(`${where}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** A consumer id also names its dead-letter and redrive topics, so it cannot start, end or repeat dots. */
export function parseConsumerId(input: unknown): string {
  const consumerId = assertConsumerId(input);
  if (!Topic.isValid(deadLetterTopicOf(consumerId)) || !Topic.isValid(redriveTopicOf(consumerId))) {
    throw new InvalidConsumerIdError(
      `consumerId ${JSON.stringify(consumerId)} cannot start or end with a dot, contain "..", or exceed 239 characters`,
    );
  }
  return consumerId;
}

function parseStartFrom(input: unknown): StartFrom {
  if (input === undefined) return DEFAULT_START_FROM;
  if (input === 'earliest' || input === 'latest') return input;
  throw new MmmqValidationError(`startFrom must be "earliest" or "latest", got ${JSON.stringify(input)}`);
}

function parseBatchSize(input: unknown): number {
  return parseBoundedInteger('batchSize', input, DEFAULT_BATCH_SIZE, MAX_BATCH_SIZE);
}

function parseMaxInFlight(input: unknown): number {
  return parseBoundedInteger('maxInFlight', input, DEFAULT_MAX_IN_FLIGHT, MAX_MAX_IN_FLIGHT);
}

function parseBoundedInteger(field: string, input: unknown, fallback: number, max: number): number {
  if (input === undefined) return fallback;
  if (typeof input === 'number' && Number.isSafeInteger(input) && input >= 1 && input <= max) return input;
  throw new MmmqValidationError(`${field} must be an integer from 1 to ${max}, got ${JSON.stringify(input)}`);
}

/** What the dispatcher API shows: everything but the signing secret, which becomes `"signed": true`. */
export function toDefinitionJson(definition: DispatcherDefinition): DispatcherDefinitionJson {
  const { signingSecret, ...shown } = toStoredDefinitionJson(definition);
  return signingSecret === undefined ? shown : { ...shown, signed: true };
}

/** What `dispatchers.json` holds, the signing secret included. */
export function toStoredDefinitionJson(definition: DispatcherDefinition): StoredDispatcherDefinitionJson {
  return {
    consumerId: definition.consumerId,
    host: definition.host.toJSON(),
    pattern: definition.pattern.value,
    startFrom: definition.startFrom,
    batchSize: definition.batchSize,
    maxInFlight: definition.maxInFlight,
    ...(definition.signingSecret === undefined ? {} : { signingSecret: definition.signingSecret.reveal() }),
  };
}

export function sameDefinition(a: DispatcherDefinition, b: DispatcherDefinition): boolean {
  return (
    a.consumerId === b.consumerId &&
    a.host.equals(b.host) &&
    a.pattern.value === b.pattern.value &&
    a.startFrom === b.startFrom &&
    a.batchSize === b.batchSize &&
    a.maxInFlight === b.maxInFlight &&
    sameSecret(a.signingSecret, b.signingSecret)
  );
}

function sameSecret(a: SigningSecret | undefined, b: SigningSecret | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.equals(b);
}

import {
  assertConsumerId,
  DEFAULT_ACK_TIMEOUT_MS,
  Host,
  InvalidConsumerIdError,
  InvalidSelectorError,
  MmmqValidationError,
  parseMemberLimits,
  parseSelector,
  Selector,
  SigningSecret,
  Topic,
  TopicPattern,
} from '@mmmq/core';
import {
  MAX_ACK_TIMEOUT_MS,
  MAX_PUSH_BATCH_SIZE as MAX_BATCH_SIZE,
  MAX_PUSH_IN_FLIGHT as MAX_MAX_IN_FLIGHT,
  MIN_ACK_TIMEOUT_MS,
  parseStartFrom as parseStartFromField,
  sameStartFrom,
  type StartFrom as CoreStartFrom,
} from '@mmmq/core';
import { BacklogLimit, backlogLimitJson, parseBacklogLimit, sameBacklogLimit } from './backlog-limit';
import { deadLetterTopicOf, redriveTopicOf } from './reserved-topics';
import type { DispatcherDefinitionJson } from '../format/dispatcher-json';

/** Where a new subscription starts when it has no checkpoint yet (`{"time"}`: the first message published at or after it). */
export type StartFrom = CoreStartFrom;
/** New dispatchers catch up with everything retained unless told otherwise. */
export const DEFAULT_START_FROM: StartFrom = 'earliest';

/** Messages per push unless the consumer asks for batches. */
export const DEFAULT_BATCH_SIZE = 1;
/** Pushes of one subscription in flight at once unless the consumer asks for more. */
export const DEFAULT_MAX_IN_FLIGHT = 1;
/** …and for a dispatcher with `ordered: false`, whose pushes are independent: enough to hide a round trip per push. */
export const DEFAULT_UNORDERED_MAX_IN_FLIGHT = 8;
/** Deliveries that may have reached a handler before a message is dead-lettered (docs/delivery.md § Dispatchers). */
export const DEFAULT_MAX_DELIVERIES = 16;
/** `maxDeliveries` that never dead-letters (a choice that can block a subscription for good). */
export const UNLIMITED_DELIVERIES = -1;
/** How long a pulled message stays leased to its member unless it asks for another time (a wire default, in core). */
export { DEFAULT_ACK_TIMEOUT_MS };
/** The most patterns and push hosts one dispatcher may have. */
export const MAX_PATTERNS = 32;
export const MAX_HOSTS = 64;

/**
 * One consumer (a consumer id): every topic matching one of its `patterns` is delivered to its members — the push
 * `hosts`, and pull clients fetching under its id. Each message goes to one member.
 */
export interface DispatcherDefinition {
  consumerId: string;
  /** Push members; none for a consumer that only pulls. Several share the messages (competing consumers). */
  hosts: Host[];
  patterns: TopicPattern[];
  startFrom: StartFrom;
  /**
   * Up to this many messages per push. Above 1 the consumer must serve `POST /mmmq/messages/batch`; it is
   * the consumer's to ask for (it is what makes the batched variant negotiated). Default {@link DEFAULT_BATCH_SIZE}.
   */
  batchSize: number;
  /**
   * Pushes of one subscription in flight at once, per host. Above 1 every push carries `mmmq-push-session` and
   * `mmmq-push-sequence` and the consumer must handle the pushes of a session in sequence order; it is the
   * consumer's to ask for. Default {@link DEFAULT_MAX_IN_FLIGHT}; {@link DEFAULT_UNORDERED_MAX_IN_FLIGHT} when not `ordered`.
   */
  maxInFlight: number;
  /**
   * False: the pushes in flight (`maxInFlight`) are independent — not numbered, each settled as its reply comes, a
   * failed one gives back only its own messages — so a plain consumer handling each push as it arrives keeps several
   * busy. Messages with an ordering key still go out one at a time per key, in offset order. Not with `exclusive`
   * (strictly ordered). Default true.
   */
  ordered: boolean;
  /**
   * With a secret, every push is signed (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
   * `webhook-signature`). Stored in `dispatchers.json`, never shown by the API or logged. Default none (unsigned).
   */
  signingSecret?: SigningSecret;
  /** Deliveries that may have reached a handler before the message is dead-lettered. Default {@link DEFAULT_MAX_DELIVERIES}. */
  maxDeliveries: number;
  /** A pulled message's lease unless the fetch asks for another. Default {@link DEFAULT_ACK_TIMEOUT_MS}. */
  ackTimeoutMs: number;
  /**
   * One member receives at a time; the others wait and take over, in order, when it fails. Also strictly ordered:
   * messages go out in offset order whatever their priority (docs/destinations.md#priority). The same as
   * `maxActiveMembers: 1`, and true exactly when that is 1. Default false.
   */
  exclusive: boolean;
  /**
   * The first this many live members, in join order, receive; the others wait as ordered backups and take over, the
   * earliest first, when an active one leaves or fails. Default none (every member receives).
   */
  maxActiveMembers?: number;
  /** Live members (push hosts, named pull members, in-process listeners) admitted at most. Default none (no cap). */
  maxMembers?: number;
  /**
   * Only messages whose headers match are delivered; the others are skipped (settled for this consumer, counted as
   * `filtered`). Parsed once, here. Default none (every message).
   */
  selector?: Selector;
  /**
   * `maxBacklog` and `backlogOverflow`: what happens when the subscription of a topic has that many messages not
   * settled (see backlog-limit.ts). Default none (no limit). Not applied to the consumer's redrive topic.
   */
  backlogLimit?: BacklogLimit;
}

/** The JSON shape of a definition in `dispatchers.json`, and as given to the dispatcher API: with the secret. */
export interface StoredDispatcherDefinitionJson extends Omit<DispatcherDefinitionJson, 'signed'> {
  signingSecret?: string;
}

const KNOWN_FIELDS = new Set([
  'consumerId',
  'host',
  'hosts',
  'pattern',
  'patterns',
  'startFrom',
  'batchSize',
  'maxInFlight',
  'ordered',
  'signingSecret',
  'maxDeliveries',
  'ackTimeoutMs',
  'exclusive',
  'maxActiveMembers',
  'maxMembers',
  'selector',
  'maxBacklog',
  'backlogOverflow',
]);

/** Validates a definition from JSON; `where` names it in the error (e.g. `dispatchers.json entry 2`). */
export function parseDispatcherDefinition(input: unknown, where: string): DispatcherDefinition {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new MmmqValidationError(`${where}: a dispatcher must be a JSON object with consumerId and pattern (and host to be pushed to)`);
  }
  const record = input as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !KNOWN_FIELDS.has(key));
  if (unknown.length > 0) throw new MmmqValidationError(`${where}: unknown field(s) ${unknown.join(', ')}`);
  if (record.consumerId === undefined) throw new MmmqValidationError(`${where}: missing field consumerId`);
  if (record.pattern === undefined && record.patterns === undefined) throw new MmmqValidationError(`${where}: missing field pattern`);
  for (const [one, many] of [
    ['host', 'hosts'],
    ['pattern', 'patterns'],
  ]) {
    if (record[one] !== undefined && record[many] !== undefined)
      throw new MmmqValidationError(`${where}: give ${one} or ${many}, not both`);
  }
  try {
    const definition: DispatcherDefinition = {
      consumerId: parseConsumerId(record.consumerId),
      hosts: parseList('hosts', record.hosts ?? (record.host === undefined ? [] : [record.host]), 0, MAX_HOSTS, (host) => Host.parse(host)),
      patterns: parseList('patterns', record.patterns ?? [record.pattern], 1, MAX_PATTERNS, (pattern) => new TopicPattern(pattern)),
      startFrom: parseStartFrom(record.startFrom),
      batchSize: parseBatchSize(record.batchSize),
      ...parseInFlightFields(record.maxInFlight, record.ordered),
      ...(record.signingSecret === undefined ? {} : { signingSecret: SigningSecret.parse(record.signingSecret) }),
      maxDeliveries: parseMaxDeliveries(record.maxDeliveries),
      ackTimeoutMs: parseAckTimeoutMs('ackTimeoutMs', record.ackTimeoutMs) ?? DEFAULT_ACK_TIMEOUT_MS,
      ...parseMemberLimitFields(record.exclusive, record.maxActiveMembers, record.maxMembers),
      ...(record.selector === undefined ? {} : { selector: parseSelectorField(record.selector) }),
      ...withBacklogLimit(parseBacklogLimit(record.maxBacklog, record.backlogOverflow)),
    };
    if (!definition.ordered && definition.exclusive) {
      throw new MmmqValidationError(
        'ordered: false cannot go with exclusive: true (maxActiveMembers 1), which is strictly ordered: give one of them',
      );
    }
    if (definition.maxMembers !== undefined && definition.hosts.length > definition.maxMembers) {
      throw new MmmqValidationError(`${definition.hosts.length} hosts exceed maxMembers ${definition.maxMembers}`);
    }
    return definition;
  } catch (error) {
    if (error instanceof MmmqValidationError) throw new MmmqValidationError(`${where}: ${error.message}`, { cause: error });
    throw error;
  }
}

function withBacklogLimit(backlogLimit: BacklogLimit | undefined): { backlogLimit?: BacklogLimit } {
  return backlogLimit === undefined ? {} : { backlogLimit };
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
  return parseStartFromField('startFrom', input) ?? DEFAULT_START_FROM;
}

function parseList<T>(field: string, input: unknown, min: number, max: number, parse: (item: unknown) => T): T[] {
  if (!Array.isArray(input) || input.length < min || input.length > max) {
    throw new MmmqValidationError(`${field} must be an array of ${min} to ${max} entries`);
  }
  return input.map(parse);
}

function parseMaxDeliveries(input: unknown): number {
  if (input === undefined) return DEFAULT_MAX_DELIVERIES;
  if (input === UNLIMITED_DELIVERIES) return input;
  if (typeof input === 'number' && Number.isSafeInteger(input) && input >= 1 && input <= 1_000_000) return input;
  throw new MmmqValidationError(
    `maxDeliveries must be an integer from 1 to 1000000, or -1 (never dead-letter), got ${JSON.stringify(input)}`,
  );
}

/** A lease length in ms, or undefined when not given. */
export function parseAckTimeoutMs(field: string, input: unknown): number | undefined {
  if (input === undefined) return undefined;
  if (typeof input === 'number' && Number.isSafeInteger(input) && input >= MIN_ACK_TIMEOUT_MS && input <= MAX_ACK_TIMEOUT_MS) return input;
  throw new MmmqValidationError(
    `${field} must be an integer from ${MIN_ACK_TIMEOUT_MS} to ${MAX_ACK_TIMEOUT_MS} (ms), got ${JSON.stringify(input)}`,
  );
}

/** `exclusive: true` is `maxActiveMembers: 1`; both may be given only when they agree. */
function parseMemberLimitFields(
  exclusive: unknown,
  maxActive: unknown,
  maxMembers: unknown,
): Pick<DispatcherDefinition, 'exclusive' | 'maxActiveMembers' | 'maxMembers'> {
  if (exclusive !== undefined && typeof exclusive !== 'boolean') {
    throw new MmmqValidationError(`exclusive must be true or false, got ${JSON.stringify(exclusive)}`);
  }
  if (exclusive === true && maxActive !== undefined && maxActive !== 1) {
    throw new MmmqValidationError(
      `exclusive: true means maxActiveMembers 1, got maxActiveMembers ${JSON.stringify(maxActive)}: give one of them`,
    );
  }
  if (exclusive === false && maxActive === 1) {
    throw new MmmqValidationError('maxActiveMembers 1 is exclusive: true, got exclusive: false: give one of them');
  }
  const limits = parseMemberLimits(exclusive === true ? 1 : maxActive, maxMembers);
  return { exclusive: limits.maxActiveMembers === 1, ...limits };
}

/** The selector is parsed here, once per definition, never per message. */
function parseSelectorField(input: unknown): Selector {
  if (typeof input !== 'string') throw new MmmqValidationError(`selector must be a string, got ${JSON.stringify(input)}`);
  try {
    return parseSelector(input);
  } catch (error) {
    if (!(error instanceof InvalidSelectorError)) throw error;
    throw new MmmqValidationError(`selector is invalid at position ${error.position}: ${error.reason}`, { cause: error });
  }
}

function parseBatchSize(input: unknown): number {
  return parseBoundedInteger('batchSize', input, DEFAULT_BATCH_SIZE, MAX_BATCH_SIZE);
}

/** `ordered` (default true) and `maxInFlight`, whose default depends on it. */
function parseInFlightFields(maxInFlight: unknown, ordered: unknown): Pick<DispatcherDefinition, 'maxInFlight' | 'ordered'> {
  if (ordered !== undefined && typeof ordered !== 'boolean') {
    throw new MmmqValidationError(`ordered must be true or false, got ${JSON.stringify(ordered)}`);
  }
  const fallback = ordered === false ? DEFAULT_UNORDERED_MAX_IN_FLIGHT : DEFAULT_MAX_IN_FLIGHT;
  return { maxInFlight: parseBoundedInteger('maxInFlight', maxInFlight, fallback, MAX_MAX_IN_FLIGHT), ordered: ordered !== false };
}

/** Whether the dispatcher keeps a roster of its members: it limits how many receive or how many there are. */
export function hasRoster(definition: DispatcherDefinition): boolean {
  return definition.maxActiveMembers !== undefined || definition.maxMembers !== undefined;
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
  const { hosts, patterns } = definition;
  return {
    consumerId: definition.consumerId,
    ...(hosts.length === 1 ? { host: hosts[0].toJSON() } : hosts.length > 1 ? { hosts: hosts.map((host) => host.toJSON()) } : {}),
    ...(patterns.length === 1 ? { pattern: patterns[0].value } : { patterns: patterns.map((pattern) => pattern.value) }),
    startFrom: definition.startFrom,
    batchSize: definition.batchSize,
    maxInFlight: definition.maxInFlight,
    ...(definition.ordered ? {} : { ordered: false }),
    maxDeliveries: definition.maxDeliveries,
    ackTimeoutMs: definition.ackTimeoutMs,
    exclusive: definition.exclusive,
    ...(definition.maxActiveMembers === undefined ? {} : { maxActiveMembers: definition.maxActiveMembers }),
    ...(definition.maxMembers === undefined ? {} : { maxMembers: definition.maxMembers }),
    ...(definition.selector === undefined ? {} : { selector: definition.selector.text }),
    ...backlogLimitJson(definition.backlogLimit),
    ...(definition.signingSecret === undefined ? {} : { signingSecret: definition.signingSecret.reveal() }),
  };
}

export function sameDefinition(a: DispatcherDefinition, b: DispatcherDefinition): boolean {
  return sameHosts(a.hosts, b.hosts) && sameSettings(a, b);
}

/** The same except perhaps for the hosts: a host joining an existing consumer. */
export function sameSettings(a: DispatcherDefinition, b: DispatcherDefinition): boolean {
  return (
    a.consumerId === b.consumerId &&
    a.patterns.length === b.patterns.length &&
    a.patterns.every((pattern, i) => pattern.value === b.patterns[i].value) &&
    sameStartFrom(a.startFrom, b.startFrom) &&
    a.batchSize === b.batchSize &&
    a.maxInFlight === b.maxInFlight &&
    a.ordered === b.ordered &&
    a.maxDeliveries === b.maxDeliveries &&
    a.ackTimeoutMs === b.ackTimeoutMs &&
    a.exclusive === b.exclusive &&
    a.maxActiveMembers === b.maxActiveMembers &&
    a.maxMembers === b.maxMembers &&
    a.selector?.text === b.selector?.text &&
    sameBacklogLimit(a.backlogLimit, b.backlogLimit) &&
    sameSecret(a.signingSecret, b.signingSecret)
  );
}

export function sameHosts(a: readonly Host[], b: readonly Host[]): boolean {
  return a.length === b.length && a.every((host, i) => host.equals(b[i]));
}

/** Whether any of the dispatcher's patterns matches the topic (its redrive topic is matched by the container). */
export function matchesAnyPattern(definition: DispatcherDefinition, topic: Topic): boolean {
  return definition.patterns.some((pattern) => pattern.matches(topic));
}

function sameSecret(a: SigningSecret | undefined, b: SigningSecret | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.equals(b);
}

import {
  describeValue as describe,
  FSYNC_MODES,
  FsyncMode,
  InvalidTopicPatternError,
  optionChecks,
  RESERVED_TOPIC_PREFIX,
  TopicPattern,
} from '@mmmq/core';
import { InvalidBrokerOptionsError } from '../config/invalid-broker-options.error';
import {
  DeduplicationOptions,
  DEFAULT_TOPIC_POLICY,
  DELIVERY_MODES,
  ExpiryOptions,
  ResolvedTopicPolicy,
  RETENTION_WHEN_NEEDED,
  RetentionOptions,
  TOPIC_OVERFLOWS,
  TopicLimitOptions,
  TopicPolicy,
  TopicsOptions,
  WHEN_EXPIRED,
} from './topic-policy.options';

/** A policy with only the fields an entry sets, checked. */
export type PartialTopicPolicy = {
  [K in keyof ResolvedTopicPolicy]?: ResolvedTopicPolicy[K] extends object ? Partial<ResolvedTopicPolicy[K]> : ResolvedTopicPolicy[K];
};

export interface ResolvedTopicsOptions {
  defaults: ResolvedTopicPolicy;
  overrides: ReadonlyArray<{ pattern: TopicPattern; policy: PartialTopicPolicy }>;
}

/**
 * What a broker-owned topic (`__dlq.…`, `__redrive.…`) gets unless an override names it: it keeps everything, and
 * it de-duplicates nothing (the broker writes it, never a producer's publish, so a window would only cost memory and
 * a read-back at every start).
 */
export const RESERVED_TOPIC_POLICY: ResolvedTopicPolicy = Object.freeze({
  ...DEFAULT_TOPIC_POLICY,
  retention: Object.freeze({ ...DEFAULT_TOPIC_POLICY.retention, ms: null }),
  deduplication: Object.freeze({ ...DEFAULT_TOPIC_POLICY.deduplication, windowMs: 0 }),
});

const { positiveInteger, nonNegativeInteger, oneOf, plainObject, refuseUnknownFields } = optionChecks(InvalidBrokerOptionsError);
const fields = (...names: string[]): ReadonlySet<string> => new Set(names);
const TOPICS_FIELDS = fields('defaults', 'overrides');
const POLICY_FIELDS = fields('retention', 'limits', 'expiry', 'deliveryMode', 'fsync', 'deduplication');
const RETENTION_FIELDS = fields('ms', 'bytes', 'whenNeeded');
const LIMIT_FIELDS = fields('maxBytes', 'maxMessages', 'overflow');
const EXPIRY_FIELDS = fields('ttlMs', 'whenExpired');
const DEDUPLICATION_FIELDS = fields('windowMs', 'maxIds');

/**
 * Checks `topics` (every field named in its error) and applies the defaults.
 *
 * @throws InvalidBrokerOptionsError
 */
export function resolveTopicsOptions(given: TopicsOptions = {}, fsync: FsyncMode = DEFAULT_TOPIC_POLICY.fsync): ResolvedTopicsOptions {
  const topics = plainObject('topics', given);
  refuseUnknownFields('topics', topics, TOPICS_FIELDS);
  const defaults = overlay({ ...DEFAULT_TOPIC_POLICY, fsync }, resolvePolicy('topics.defaults', topics.defaults ?? {}));
  if (topics.overrides !== undefined && !Array.isArray(topics.overrides)) {
    throw new InvalidBrokerOptionsError(`topics.overrides must be an array, got ${describe(topics.overrides)}`);
  }
  const overrides = ((topics.overrides as unknown[] | undefined) ?? []).map((entry, i) => {
    const where = `topics.overrides[${i}]`;
    const { pattern, ...policy } = plainObject(where, entry);
    return { pattern: patternOf(`${where}.pattern`, pattern), policy: resolvePolicy(where, policy) };
  });
  return { defaults, overrides };
}

/** The policy of `topic`: the defaults (none for a broker-owned topic), then every override matching it, in order. */
export function topicPolicyOf(resolved: ResolvedTopicsOptions, topic: string): ResolvedTopicPolicy {
  let policy = topic.startsWith(RESERVED_TOPIC_PREFIX) ? RESERVED_TOPIC_POLICY : resolved.defaults;
  for (const { pattern, policy: override } of resolved.overrides) if (pattern.matches(topic)) policy = overlay(policy, override);
  return policy;
}

function overlay(base: ResolvedTopicPolicy, part: PartialTopicPolicy): ResolvedTopicPolicy {
  return {
    retention: { ...base.retention, ...part.retention },
    limits: { ...base.limits, ...part.limits },
    expiry: { ...base.expiry, ...part.expiry },
    deliveryMode: part.deliveryMode ?? base.deliveryMode,
    fsync: part.fsync ?? base.fsync,
    deduplication: { ...base.deduplication, ...part.deduplication },
  };
}

function resolvePolicy(where: string, given: unknown): PartialTopicPolicy {
  const policy = plainObject(where, given) as TopicPolicy;
  refuseUnknownFields(where, policy, POLICY_FIELDS);
  const resolved: PartialTopicPolicy = {};
  if (policy.retention !== undefined) resolved.retention = resolveRetention(`${where}.retention`, policy.retention);
  if (policy.limits !== undefined) resolved.limits = resolveLimits(`${where}.limits`, policy.limits);
  if (policy.expiry !== undefined) resolved.expiry = resolveExpiry(`${where}.expiry`, policy.expiry);
  if (policy.deliveryMode !== undefined) resolved.deliveryMode = oneOf(`${where}.deliveryMode`, policy.deliveryMode, DELIVERY_MODES);
  if (policy.fsync !== undefined) resolved.fsync = oneOf(`${where}.fsync`, policy.fsync, FSYNC_MODES);
  if (policy.deduplication !== undefined) resolved.deduplication = resolveDeduplication(`${where}.deduplication`, policy.deduplication);
  return resolved;
}

function resolveRetention(where: string, given: unknown): PartialTopicPolicy['retention'] {
  const retention = plainObject(where, given) as RetentionOptions;
  refuseUnknownFields(where, retention, RETENTION_FIELDS);
  return defined({
    ms: limit(`${where}.ms`, retention.ms),
    bytes: limit(`${where}.bytes`, retention.bytes),
    whenNeeded: retention.whenNeeded === undefined ? undefined : oneOf(`${where}.whenNeeded`, retention.whenNeeded, RETENTION_WHEN_NEEDED),
  });
}

function resolveLimits(where: string, given: unknown): PartialTopicPolicy['limits'] {
  const limits = plainObject(where, given) as TopicLimitOptions;
  refuseUnknownFields(where, limits, LIMIT_FIELDS);
  return defined({
    maxBytes: limit(`${where}.maxBytes`, limits.maxBytes),
    maxMessages: limit(`${where}.maxMessages`, limits.maxMessages),
    overflow: limits.overflow === undefined ? undefined : oneOf(`${where}.overflow`, limits.overflow, TOPIC_OVERFLOWS),
  });
}

function resolveExpiry(where: string, given: unknown): PartialTopicPolicy['expiry'] {
  const expiry = plainObject(where, given) as ExpiryOptions;
  refuseUnknownFields(where, expiry, EXPIRY_FIELDS);
  return defined({
    ttlMs: limit(`${where}.ttlMs`, expiry.ttlMs),
    whenExpired: expiry.whenExpired === undefined ? undefined : oneOf(`${where}.whenExpired`, expiry.whenExpired, WHEN_EXPIRED),
  });
}

function resolveDeduplication(where: string, given: unknown): PartialTopicPolicy['deduplication'] {
  const deduplication = plainObject(where, given) as DeduplicationOptions;
  refuseUnknownFields(where, deduplication, DEDUPLICATION_FIELDS);
  const { windowMs, maxIds } = deduplication;
  return defined({
    windowMs: windowMs === undefined ? undefined : nonNegativeInteger(`${where}.windowMs`, windowMs),
    maxIds: maxIds === undefined ? undefined : positiveInteger(`${where}.maxIds`, maxIds),
  });
}

/** A positive integer, or `null` for no limit; undefined when not given. */
function limit(name: string, value: unknown): number | null | undefined {
  if (value === undefined || value === null) return value;
  return positiveInteger(name, value);
}

function patternOf(name: string, value: unknown): TopicPattern {
  try {
    return TopicPattern.of(value);
  } catch (error) {
    if (error instanceof InvalidTopicPatternError) throw new InvalidBrokerOptionsError(`${name}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** Drops the fields left undefined, so an overlay keeps what they do not set. */
function defined<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
}

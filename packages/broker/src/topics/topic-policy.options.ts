import type { DeliveryMode, FsyncMode } from '@mmmq/core';

/**
 * What a topic keeps and how it treats the messages it holds: retention, limits, expiry, delivery mode and
 * de-duplication. The
 * broker-wide `topics.defaults` apply to every topic; `topics.overrides` entries, each naming a topic pattern (a topic
 * name is a pattern that matches only itself), overlay them field by field in the order given — put broad patterns
 * first and narrow ones after.
 */

/** Kafka's default: a week of messages. */
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * What retention does with a segment past its age or size that a subscription has not consumed yet: `keep` it (the
 * subscription still gets every message; the topic grows past the limit, with a warning) or `delete` it anyway (the
 * subscription resumes at the oldest retained offset and counts what it skipped).
 */
export type RetentionWhenNeeded = 'keep' | 'delete';
export const RETENTION_WHEN_NEEDED: readonly RetentionWhenNeeded[] = ['keep', 'delete'];

export interface RetentionOptions {
  /** Whole segments whose newest message is older than this are deleted. Default {@link DEFAULT_RETENTION_MS}; `null` keeps them forever. */
  ms?: number | null;
  /** Oldest whole segments are deleted while the topic holds more than this many bytes. Default `null`: no size limit. */
  bytes?: number | null;
  /** Default `keep`. */
  whenNeeded?: RetentionWhenNeeded;
}

/**
 * What a topic at its limit does with a new publish: `reject` it (429 with `Retry-After`; the producer backs off
 * and retries with the same id) or `dropOldest` (whole oldest segments are deleted until the new message fits, even
 * those a subscription still needs).
 */
export type TopicOverflow = 'reject' | 'dropOldest';
export const TOPIC_OVERFLOWS: readonly TopicOverflow[] = ['reject', 'dropOldest'];

export interface TopicLimitOptions {
  /** Most bytes of segment data the topic holds. Default `null`: no limit. */
  maxBytes?: number | null;
  /** Most messages the topic holds. Default `null`: no limit. */
  maxMessages?: number | null;
  /** Default `reject`. */
  overflow?: TopicOverflow;
}

/** What happens to a message whose time to live has passed before it was delivered. */
export type WhenExpired = 'deadLetter' | 'drop';
export const WHEN_EXPIRED: readonly WhenExpired[] = ['deadLetter', 'drop'];

export interface ExpiryOptions {
  /** Time to live of a message published without its own `ttlMs` / `expiresAt`. Default `null`: never expires. */
  ttlMs?: number | null;
  /** Default `deadLetter` (reason `EXPIRED`). */
  whenExpired?: WhenExpired;
}

/**
 * NATS JetStream's default duplicate window: long enough for a producer's retries (its backoff caps at seconds) and an
 * outbox relay's AMBIGUOUS retry after a lost connection, short enough that the ids kept stay few.
 */
export const DEFAULT_DEDUPLICATION_WINDOW_MS = 2 * 60 * 1000;

/**
 * Most ids one topic remembers. Measured: ~175–215 bytes per 36-character UUID id (the id string, its map entry and
 * window entry), ~430 per 256-character id, so ~17–21 MB per topic at the cap with UUID ids — and every message
 * `@mmmq/producer` publishes has one (it sends a random UUID when given none). At 100 000 messages in two minutes
 * (~830 a second with producer-given ids) the window starts to shrink below `windowMs`.
 */
export const DEFAULT_DEDUPLICATION_MAX_IDS = 100_000;

export interface DeduplicationOptions {
  /**
   * How long the topic remembers each producer-given message id after the message was stored: a re-publish of a known
   * id within it is answered with the original ACK and stores nothing. Default {@link DEFAULT_DEDUPLICATION_WINDOW_MS};
   * `0` turns de-duplication off for the topic.
   */
  windowMs?: number;
  /**
   * Most ids the topic remembers; at the cap the oldest is forgotten before its window ends (the window shrinks,
   * counted in the topic's `deduplication.evicted`). Default {@link DEFAULT_DEDUPLICATION_MAX_IDS}.
   */
  maxIds?: number;
}

// Shared with the producer, which validates the same field; see docs/destinations.md#delivery-modes.
export { type DeliveryMode, DELIVERY_MODES } from '@mmmq/core';

export interface TopicPolicy {
  retention?: RetentionOptions;
  limits?: TopicLimitOptions;
  expiry?: ExpiryOptions;
  /** Mode of a message published without one. Default `persistent`. */
  deliveryMode?: DeliveryMode;
  /**
   * When a publish's journal record is fsync'd (docs/storage.md#flush-policy-fsync): `always` (before the ACK),
   * `interval` or `never`. Default the broker's `persistence.fsync`, itself `always`.
   */
  fsync?: FsyncMode;
  /** Broker-side de-duplication of producer-given message ids (docs/destinations.md#de-duplication). */
  deduplication?: DeduplicationOptions;
}

export interface TopicPolicyOverride extends TopicPolicy {
  /** Topics this entry applies to: a topic pattern (`order.*`, `audit.**`) or one topic's name. */
  pattern: string;
}

export interface TopicsOptions {
  /** Applies to every topic. */
  defaults?: TopicPolicy;
  /** Overlay the defaults for the topics their pattern matches, in order. Default none. */
  overrides?: TopicPolicyOverride[];
}

/** A topic's policy after defaults and overrides; `null` limits are off. */
export interface ResolvedTopicPolicy {
  retention: { ms: number | null; bytes: number | null; whenNeeded: RetentionWhenNeeded };
  limits: { maxBytes: number | null; maxMessages: number | null; overflow: TopicOverflow };
  expiry: { ttlMs: number | null; whenExpired: WhenExpired };
  deliveryMode: DeliveryMode;
  fsync: FsyncMode;
  /** `windowMs` 0: off. */
  deduplication: { windowMs: number; maxIds: number };
}

export const DEFAULT_TOPIC_POLICY: ResolvedTopicPolicy = Object.freeze({
  retention: Object.freeze({ ms: DEFAULT_RETENTION_MS, bytes: null, whenNeeded: 'keep' as const }),
  limits: Object.freeze({ maxBytes: null, maxMessages: null, overflow: 'reject' as const }),
  expiry: Object.freeze({ ttlMs: null, whenExpired: 'deadLetter' as const }),
  deliveryMode: 'persistent' as const,
  fsync: 'always' as const,
  deduplication: Object.freeze({ windowMs: DEFAULT_DEDUPLICATION_WINDOW_MS, maxIds: DEFAULT_DEDUPLICATION_MAX_IDS }),
});

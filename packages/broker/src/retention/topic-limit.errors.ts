import { MmmqError, MmmqValidationError } from '@mmmq/core';

/** How long a producer refused by a topic limit waits before it retries, unless the error says otherwise. */
export const DEFAULT_TOPIC_LIMIT_RETRY_AFTER_MS = 1000;

/** Which limit of `topics…limits` refused a publish. */
export type TopicLimitName = 'maxBytes' | 'maxMessages';

/**
 * A publish would take its topic over `topics…limits.maxBytes` or `maxMessages` (overflow `reject`, or `dropOldest`
 * with nothing old left to drop). Nothing of it is stored; answered with 429 and `Retry-After`, so the producer
 * backs off and retries with the same id once retention has made room.
 */
export class TopicLimitExceededError extends MmmqError {
  readonly retryAfterMs: number;

  constructor(
    readonly topic: string,
    readonly limit: TopicLimitName,
    readonly value: number,
    readonly held: number,
    retryAfterMs = DEFAULT_TOPIC_LIMIT_RETRY_AFTER_MS,
  ) {
    super(
      `Topic ${topic} is at its limit: it holds ${held} ${unit(limit)} and limits.${limit} is ${value}; ` +
        'the publish was not stored, retry later',
    );
    this.retryAfterMs = retryAfterMs;
  }
}

/** The publish alone is larger than its topic's limit, so no retry can succeed; answered with 400. */
export class PublishExceedsTopicLimitError extends MmmqValidationError {
  constructor(topic: string, limit: TopicLimitName, value: number, asked: number) {
    super(`The publish to topic ${topic} alone needs ${asked} ${unit(limit)}, more than its limits.${limit} of ${value}`);
  }
}

function unit(limit: TopicLimitName): string {
  return limit === 'maxBytes' ? 'bytes' : 'messages';
}

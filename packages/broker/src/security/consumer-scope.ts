import { InvalidTopicPatternError, TOPIC_PATTERN_MAX_LENGTH, TopicPattern } from '@mmmq/core';

/**
 * Consumer ids are matched as topics would be, under a segment of their own: an id beginning with `__` is an
 * ordinary id, not a reserved topic, so `**` must cover it too (a bare {@link TopicPattern} never matches `__…`).
 */
const SCOPE_ROOT = 'c.';

/** Longest consumer-id pattern: a topic pattern's limit, less the root segment it is matched under. */
export const CONSUMER_PATTERN_MAX_LENGTH = TOPIC_PATTERN_MAX_LENGTH - SCOPE_ROOT.length;

/**
 * The consumer ids a token may act for (`auth.tokens[i].consumers`): patterns in the dispatcher syntax over the
 * dot-separated id (`billing`, `billing.*`, `billing.**`), matched case-sensitively against the whole id.
 */
export class ConsumerScope {
  readonly #matchers: readonly TopicPattern[];

  private constructor(readonly patterns: readonly string[]) {
    this.#matchers = patterns.map((pattern) => TopicPattern.of(SCOPE_ROOT + pattern));
  }

  /** @throws InvalidTopicPatternError naming the first malformed pattern */
  static of(patterns: readonly unknown[]): ConsumerScope {
    return new ConsumerScope(patterns.map((pattern) => ConsumerScope.checkPattern(pattern)));
  }

  /**
   * @returns `pattern`, a valid consumer-id pattern
   * @throws InvalidTopicPatternError saying what is wrong with it
   */
  static checkPattern(pattern: unknown): string {
    const checked = TopicPattern.of(pattern).value;
    if (checked.length > CONSUMER_PATTERN_MAX_LENGTH) {
      throw new InvalidTopicPatternError(
        `Consumer-id pattern ${JSON.stringify(checked)} is too long; the maximum is ${CONSUMER_PATTERN_MAX_LENGTH} characters`,
      );
    }
    return checked;
  }

  /** Whether the token may act for `consumerId`; an id no pattern could name (malformed) is never covered. */
  covers(consumerId: string): boolean {
    return this.#matchers.some((matcher) => matcher.matches(SCOPE_ROOT + consumerId));
  }

  /** The patterns as configured, for errors: `billing.*, audit`. */
  toString(): string {
    return this.patterns.join(', ');
  }

  toJSON(): readonly string[] {
    return this.patterns;
  }
}

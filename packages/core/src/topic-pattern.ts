import { describeValue } from './errors/describe-value';
import { InvalidTopicPatternError } from './errors/invalid-topic-pattern-error';
import { RESERVED_TOPIC_PREFIX, TOPIC_SEGMENT_SEPARATOR, Topic } from './topic';

/** Matches every user topic (but no reserved `__` topic). */
export const MATCH_ALL_PATTERN = '**';

/** Longest accepted pattern; as long as the longest topic name, since a literal pattern must be able to name it. */
export const TOPIC_PATTERN_MAX_LENGTH = 249;

const ANY_SEGMENTS = '**';
const ANY_SEGMENT = '*';

// The topic alphabet plus the two wildcards. Anything else could never match a valid topic, so it is
// almost certainly a typo (or a `{var}` template from Spring's AntPathMatcher, which MMMQ does not support).
const PATTERN_SEGMENT_CHARACTER = /[A-Za-z0-9_*?-]/;
const PATTERN = /^[A-Za-z0-9_*?-]+(?:\.[A-Za-z0-9_*?-]+)*$/;
const WILDCARD = /[*?]/;
const GLOB_TOKEN = /\*+|\?/g;

/** Tests a single topic segment; `null` stands for `**`, which spans zero or more segments. */
type SegmentMatcher = ((segment: string) => boolean) | null;

/**
 * An Ant-style topic pattern with `.` as the separator, matched case-sensitively against the whole topic:
 * `*` is exactly one segment, `*` and `?` inside a segment glob within that segment, and a `**` segment
 * spans zero or more segments. It is compiled once because matching runs for every dispatcher on every
 * published message.
 */
export class TopicPattern {
  readonly value: string;
  readonly #matchers: readonly SegmentMatcher[];
  readonly #isLiteral: boolean;
  // Reserved topics (dead letters and such) are only delivered to subscribers who ask for them by name,
  // so a catch-all `**` consumer does not suddenly receive the broker's internal traffic.
  readonly #namesReservedTopics: boolean;

  /** @throws InvalidTopicPatternError when `pattern` is blank or malformed. */
  constructor(pattern: unknown) {
    if (!isValidPattern(pattern)) {
      throw new InvalidTopicPatternError(explainInvalidPattern(pattern));
    }
    this.value = pattern;
    this.#matchers = compile(pattern);
    this.#isLiteral = !WILDCARD.test(pattern);
    this.#namesReservedTopics = pattern.startsWith(RESERVED_TOPIC_PREFIX);
  }

  /** @throws InvalidTopicPatternError when `pattern` is blank or malformed. */
  static of(pattern: unknown): TopicPattern {
    return new TopicPattern(pattern);
  }

  /** A string that is not a valid topic name never matches. */
  matches(topic: Topic | string): boolean {
    let name: string;
    if (typeof topic === 'string') {
      if (!Topic.isValid(topic)) {
        return false;
      }
      name = topic;
    } else {
      name = topic.name;
    }
    if (!this.#namesReservedTopics && name.startsWith(RESERVED_TOPIC_PREFIX)) {
      return false;
    }
    if (this.#isLiteral) {
      return name === this.value;
    }
    return matchSegments(this.#matchers, name.split(TOPIC_SEGMENT_SEPARATOR));
  }

  toString(): string {
    return this.value;
  }

  toJSON(): string {
    return this.value;
  }
}

function isValidPattern(pattern: unknown): pattern is string {
  return typeof pattern === 'string' && pattern.length <= TOPIC_PATTERN_MAX_LENGTH && PATTERN.test(pattern);
}

function explainInvalidPattern(pattern: unknown): string {
  if (typeof pattern !== 'string') {
    return `Topic pattern must be a string, got ${describeValue(pattern)}`;
  }
  if (pattern.trim().length === 0) {
    return `Topic pattern must not be blank, got ${describeValue(pattern)}`;
  }
  if (pattern.length > TOPIC_PATTERN_MAX_LENGTH) {
    return `Topic pattern ${describeValue(pattern)} is too long; the maximum is ${TOPIC_PATTERN_MAX_LENGTH} characters`;
  }
  // Spread by code point so an astral character is reported whole, not as half a surrogate pair.
  const forbidden = [...pattern].find(
    (character) => character !== TOPIC_SEGMENT_SEPARATOR && !PATTERN_SEGMENT_CHARACTER.test(character),
  );
  if (forbidden !== undefined) {
    return (
      `Topic pattern ${describeValue(pattern)} contains the forbidden character ${describeValue(forbidden)}; ` +
      `allowed are A-Z, a-z, 0-9, '_', '-', '*' and '?' in segments separated by single '.'`
    );
  }
  return `Topic pattern ${describeValue(pattern)} has an empty segment (leading, trailing or doubled '.')`;
}

function compile(pattern: string): SegmentMatcher[] {
  const matchers: SegmentMatcher[] = [];
  for (const segment of pattern.split(TOPIC_SEGMENT_SEPARATOR)) {
    if (segment === ANY_SEGMENTS) {
      // `**.**` spans exactly what `**` spans; keeping one avoids needless backtracking.
      if (matchers.at(-1) !== null) {
        matchers.push(null);
      }
    } else {
      matchers.push(compileSegment(segment));
    }
  }
  return matchers;
}

function compileSegment(segment: string): (topicSegment: string) => boolean {
  if (segment === ANY_SEGMENT) {
    return () => true;
  }
  if (!WILDCARD.test(segment)) {
    return (topicSegment) => topicSegment === segment;
  }
  // Only `*` and `?` need translating: every other allowed character is literal in a RegExp. As in Ant,
  // `**` inside a segment (`a**b`) is just a glob like `a*b`.
  const glob = new RegExp(`^${segment.replace(GLOB_TOKEN, (token) => (token === '?' ? '[^.]' : '[^.]*'))}$`);
  return (topicSegment) => glob.test(topicSegment);
}

/**
 * Classic wildcard matching with `**` as the star and every other matcher consuming exactly one segment:
 * on a mismatch, let the most recent `**` swallow one more segment and retry. Retrying only from the
 * latest `**` suffices because the matchers between two `**` form a fixed-length block, and placing that
 * block as early as possible never rules out a match. No recursion, O(pattern × topic) at worst.
 */
function matchSegments(matchers: readonly SegmentMatcher[], segments: readonly string[]): boolean {
  let matcherIndex = 0;
  let segmentIndex = 0;
  let lastAnyIndex = -1;
  let resumeSegmentIndex = 0;
  while (segmentIndex < segments.length) {
    if (matcherIndex < matchers.length) {
      const matcher = matchers[matcherIndex];
      if (matcher === null) {
        lastAnyIndex = matcherIndex;
        resumeSegmentIndex = segmentIndex;
        matcherIndex++;
        continue;
      }
      if (matcher(segments[segmentIndex])) {
        matcherIndex++;
        segmentIndex++;
        continue;
      }
    }
    if (lastAnyIndex < 0) {
      return false;
    }
    matcherIndex = lastAnyIndex + 1;
    resumeSegmentIndex++;
    segmentIndex = resumeSegmentIndex;
  }
  // Topic exhausted: only trailing `**` (spanning zero segments) may remain.
  while (matcherIndex < matchers.length && matchers[matcherIndex] === null) {
    matcherIndex++;
  }
  return matcherIndex === matchers.length;
}

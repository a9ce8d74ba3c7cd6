import { describeValue } from './errors/describe-value';
import { InvalidTopicPatternError } from './errors/invalid-topic-pattern-error';
import { RESERVED_TOPIC_PREFIX, TOPIC_SEGMENT_SEPARATOR, Topic } from './topic';
import { wildcardMatches } from './wildcard-match';

/** Matches every user topic (but no reserved `__` topic). */
export const MATCH_ALL_PATTERN = '**';

/** Longest accepted pattern; as long as the longest topic name, since a literal pattern must be able to name it. */
export const TOPIC_PATTERN_MAX_LENGTH = 249;

/**
 * Most wildcards in one pattern, counting each `?` and each run of `*` (so `**` and `a**b` count once).
 * Matching is linear-ish whatever the count; this bounds the work a registered pattern can cost per
 * published message, and no sensible pattern comes close.
 */
export const TOPIC_PATTERN_MAX_WILDCARDS = 32;

const ANY_SEGMENTS = '**';
const ANY_SEGMENT = '*';

// The topic alphabet plus the two wildcards. Anything else could never match a valid topic, so it is
// almost certainly a typo (or a `{var}` template from Spring's AntPathMatcher, which MMMQ does not support).
const PATTERN_SEGMENT_CHARACTER = /[A-Za-z0-9_*?-]/;
const PATTERN = /^[A-Za-z0-9_*?-]+(?:\.[A-Za-z0-9_*?-]+)*$/;
const WILDCARD = /[*?]/;
const GLOB_STAR = '*';
const GLOB_ANY_CHARACTER = '?';

/** Tests a single topic segment; `null` stands for `**`, which spans zero or more segments. */
type SegmentMatcher = ((segment: string) => boolean) | null;

/**
 * An Ant-style topic pattern with `.` as the separator, matched case-sensitively against the whole topic:
 * `*` is exactly one segment, `*` and `?` inside a segment glob within that segment, and a `**` segment
 * spans zero or more segments. It is compiled once because matching runs for every dispatcher on every
 * published message, and it never builds a regular expression from the pattern: both levels use greedy
 * wildcard matching, O(pattern × topic) at worst, so no pattern can make a publish spin.
 */
export class TopicPattern {
  readonly value: string;
  readonly #matchers: readonly SegmentMatcher[];
  readonly #isLiteral: boolean;
  // Reserved topics (dead letters and such) are only delivered to subscribers who ask for them by name,
  // so a catch-all `**` consumer does not suddenly receive the broker's internal traffic.
  readonly #namesReservedTopics: boolean;

  /** @throws InvalidTopicPatternError when `pattern` is blank, malformed or has too many wildcards. */
  constructor(pattern: unknown) {
    if (!isValidPattern(pattern)) {
      throw new InvalidTopicPatternError(explainInvalidPattern(pattern));
    }
    const wildcards = countWildcards(pattern);
    if (wildcards > TOPIC_PATTERN_MAX_WILDCARDS) {
      throw new InvalidTopicPatternError(
        `Topic pattern ${describeValue(pattern)} has ${wildcards} wildcards; the maximum is ` +
          `${TOPIC_PATTERN_MAX_WILDCARDS} (each '?' and each run of '*' counts once)`,
      );
    }
    this.value = pattern;
    this.#matchers = compile(pattern);
    this.#isLiteral = !WILDCARD.test(pattern);
    this.#namesReservedTopics = pattern.startsWith(RESERVED_TOPIC_PREFIX);
  }

  /** @throws InvalidTopicPatternError when `pattern` is blank, malformed or has too many wildcards. */
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
  const forbidden = [...pattern].find((character) => character !== TOPIC_SEGMENT_SEPARATOR && !PATTERN_SEGMENT_CHARACTER.test(character));
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
  // As in Ant, `**` inside a segment (`a**b`) is just a glob like `a*b`; one star of a run does the same.
  const glob = collapseStarRuns(segment);
  return (topicSegment) =>
    wildcardMatches(
      glob.length,
      topicSegment.length,
      (at) => glob[at] === GLOB_STAR,
      (at, textAt) => glob[at] === GLOB_ANY_CHARACTER || glob[at] === topicSegment[textAt],
    );
}

function collapseStarRuns(glob: string): string {
  let collapsed = '';
  for (const character of glob) {
    if (character !== GLOB_STAR || !collapsed.endsWith(GLOB_STAR)) {
      collapsed += character;
    }
  }
  return collapsed;
}

/** Each `?` and each run of `*` is one wildcard; a `.` ends a run like any other character. */
function countWildcards(pattern: string): number {
  let count = 0;
  let previous = '';
  for (const character of pattern) {
    if (character === GLOB_ANY_CHARACTER || (character === GLOB_STAR && previous !== GLOB_STAR)) {
      count++;
    }
    previous = character;
  }
  return count;
}

/** `**` is the star and every other matcher consumes exactly one segment; see {@link wildcardMatches}. */
function matchSegments(matchers: readonly SegmentMatcher[], segments: readonly string[]): boolean {
  return wildcardMatches(
    matchers.length,
    segments.length,
    (at) => matchers[at] === null,
    (at, segmentAt) => matchers[at]?.(segments[segmentAt]) === true,
  );
}

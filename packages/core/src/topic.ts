import { describeValue } from './errors/describe-value';
import { InvalidTopicError } from './errors/invalid-topic-error';

/** Longest accepted topic name; stays under the usual 255-byte file-name limit with room to spare. */
export const TOPIC_NAME_MAX_LENGTH = 249;

/** Topics whose name starts with this belong to the broker (dead-letter topics and the like). */
export const RESERVED_TOPIC_PREFIX = '__';

/** Separates the segments of a topic name and of a topic pattern. */
export const TOPIC_SEGMENT_SEPARATOR = '.';

// Topic names become directory names, so this is an allow-list: anything it does not spell out
// (path separators, `.`/`..`, NUL, unicode look-alikes, empty segments) is rejected, never sanitised.
const TOPIC_SEGMENT_CHARACTER = /[A-Za-z0-9_-]/;
const TOPIC_NAME = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;

/** A validated topic name. Holding a `Topic` is proof that the name is safe to use as a directory name. */
export class Topic {
  readonly name: string;

  /** @throws InvalidTopicError when `name` is not a valid topic name. */
  constructor(name: unknown) {
    if (!Topic.isValid(name)) {
      throw new InvalidTopicError(explainInvalidTopicName(name));
    }
    this.name = name;
  }

  /** @throws InvalidTopicError when `name` is not a valid topic name. */
  static of(name: unknown): Topic {
    return new Topic(name);
  }

  static isValid(name: unknown): name is string {
    return typeof name === 'string' && name.length <= TOPIC_NAME_MAX_LENGTH && TOPIC_NAME.test(name);
  }

  /**
   * Key under which two names collide on a case-insensitive file system; the broker refuses to create
   * a topic whose key is already taken. Plain `toLowerCase` is exact here because names are ASCII.
   */
  static caseFoldKey(name: string): string {
    return name.toLowerCase();
  }

  get isReserved(): boolean {
    return this.name.startsWith(RESERVED_TOPIC_PREFIX);
  }

  equals(other: Topic): boolean {
    return this.name === other.name;
  }

  toString(): string {
    return this.name;
  }

  toJSON(): string {
    return this.name;
  }
}

function explainInvalidTopicName(name: unknown): string {
  if (typeof name !== 'string') {
    return `Topic name must be a string, got ${describeValue(name)}`;
  }
  if (name.length === 0) {
    return 'Topic name must not be empty';
  }
  if (name.length > TOPIC_NAME_MAX_LENGTH) {
    return `Topic name ${describeValue(name)} is too long; the maximum is ${TOPIC_NAME_MAX_LENGTH} characters`;
  }
  // Spread by code point so an astral character is reported whole, not as half a surrogate pair.
  const forbidden = [...name].find((character) => character !== TOPIC_SEGMENT_SEPARATOR && !TOPIC_SEGMENT_CHARACTER.test(character));
  if (forbidden !== undefined) {
    return (
      `Topic name ${describeValue(name)} contains the forbidden character ${describeValue(forbidden)}; ` +
      `allowed are A-Z, a-z, 0-9, '_' and '-' in segments separated by single '.'`
    );
  }
  return `Topic name ${describeValue(name)} has an empty segment (leading, trailing or doubled '.')`;
}

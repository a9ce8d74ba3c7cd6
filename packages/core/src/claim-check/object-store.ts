import type { Readable } from 'node:stream';
import { describeValue } from '../errors/describe-value';
import { InvalidObjectKeyError } from './claim-check.errors';

/** Longest object key; a random UUID (what the producer uses) has 36 characters. */
export const OBJECT_KEY_MAX_LENGTH = 200;
// One plain name: no `/` (so no path), no leading `.` (so no `.`, `..` or hidden file), nothing to escape in a URL.
const OBJECT_KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** What the producer tells a store about an object it writes. */
export interface ObjectMetadata {
  /** Bytes of the object. */
  size: number;
  /** Lowercase hex SHA-256 of the bytes (an S3 store may send it as `x-amz-checksum-sha256`, base64). */
  sha256: string;
  /** Epoch ms after which no consumer will read the object, so a store may delete it (an S3 lifecycle rule). */
  expiresAt: number;
}

/**
 * Where claim-checked contents live: a key-value store of immutable objects, as S3 and its compatibles are. Keys are
 * new on every `put` (the producer picks a random UUID), so a store needs no overwrite, rename or listing semantics.
 * `FileSystemObjectStore` is the default implementation; docs/exactly-once.md shows an S3-compatible one.
 */
export interface ObjectStore {
  /** Stores `body` under `key` and resolves once it is durable: a consumer may read it as soon as this resolves. */
  put(key: string, body: Buffer, metadata: ObjectMetadata): Promise<void>;
  /**
   * Opens the object for reading.
   * @throws ObjectNotFoundError when no object has this key; any other error counts as transient (the read is retried)
   */
  get(key: string): Promise<Readable>;
  /** Removes the object; a missing one is not an error. */
  delete(key: string): Promise<void>;
}

/** Whether `key` is a valid object key (see {@link assertObjectKey}). */
export function isObjectKey(key: unknown): key is string {
  return typeof key === 'string' && key.length <= OBJECT_KEY_MAX_LENGTH && OBJECT_KEY.test(key);
}

/**
 * Keys come from messages, so a store must never let one name something outside it.
 * @throws InvalidObjectKeyError unless `key` is 1 to {@link OBJECT_KEY_MAX_LENGTH} of `A-Z a-z 0-9 . _ -`, not starting with `.`
 */
export function assertObjectKey(key: unknown): string {
  if (!isObjectKey(key)) {
    throw new InvalidObjectKeyError(
      `An object key must be 1 to ${OBJECT_KEY_MAX_LENGTH} characters of A-Z a-z 0-9 . _ - not starting with ".", got ${describeValue(key)}`,
    );
  }
  return key;
}

const OBJECT_STORE_METHODS = ['put', 'get', 'delete'] as const;

/** True for an option value that can serve as an {@link ObjectStore}: an object with `put`, `get` and `delete`. */
export function isObjectStore(value: unknown): value is ObjectStore {
  return (
    typeof value === 'object' &&
    value !== null &&
    OBJECT_STORE_METHODS.every((method) => typeof (value as Record<string, unknown>)[method] === 'function')
  );
}

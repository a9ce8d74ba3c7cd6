import { describeValue } from '../errors/describe-value';
import { InvalidClaimCheckReferenceError } from './claim-check.errors';
import { isObjectKey, OBJECT_KEY_MAX_LENGTH } from './object-store';

/**
 * The header that marks a message as a claim check: its content is a {@link ClaimCheckReference}, not the content
 * itself. Its value is the reference format's version, {@link CLAIM_CHECK_VERSION}.
 */
export const CLAIM_CHECK_HEADER = 'mmmq-claim-check';
/** The reference format this version of MMMQ writes and reads. */
export const CLAIM_CHECK_VERSION = 1;
/** Contents larger than this (serialised JSON bytes) are claim-checked by default: the broker's default body limit. */
export const DEFAULT_CLAIM_CHECK_THRESHOLD_BYTES = 1024 * 1024;
/** How long a stored content stays readable by default: 7 days, the broker's default topic retention. */
export const DEFAULT_CLAIM_CHECK_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * The largest content a consumer fetches by default: 256 MiB. The size comes from the message, and the consumer
 * allocates it before reading, so an unbounded one would let any publisher make every consumer allocate gigabytes.
 */
export const DEFAULT_CLAIM_CHECK_MAX_BYTES = 256 * 1024 * 1024;

/**
 * Where a claim-checked content is and how to prove it is the one the producer stored. The digest is mandatory:
 * the content and the message live in two systems with their own retention and replication, and without it a
 * truncated or replaced object could not be told from the right one.
 */
export interface ClaimCheckReference {
  version: typeof CLAIM_CHECK_VERSION;
  /** The object's key in the store. */
  key: string;
  /** Lowercase hex SHA-256 of the content's bytes (its JSON text, UTF-8). */
  sha256: string;
  /** The content's length in bytes. */
  size: number;
  /** Epoch ms after which the reference is void: the object may be gone, and it is not read. */
  expiresAt: number;
}

const FIELDS: ReadonlySet<string> = new Set(['version', 'key', 'sha256', 'size', 'expiresAt']);
const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Checks a message's content against the reference format, naming the first problem.
 * @throws InvalidClaimCheckReferenceError
 */
export function parseClaimCheckReference(value: unknown): ClaimCheckReference {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`must be an object { version, key, sha256, size, expiresAt }, got ${describeValue(value)}`);
  }
  const fields = value as Record<string, unknown>;
  const unknown = Object.keys(fields).find((name) => !FIELDS.has(name));
  if (unknown !== undefined) throw invalid(`has an unknown field ${JSON.stringify(unknown)}`);
  const { version, key, sha256, size, expiresAt } = fields;
  if (version !== CLAIM_CHECK_VERSION) throw invalid(`version must be ${CLAIM_CHECK_VERSION}, got ${describeValue(version)}`);
  if (!isObjectKey(key)) {
    throw invalid(
      `key must be 1 to ${OBJECT_KEY_MAX_LENGTH} characters of A-Z a-z 0-9 . _ - not starting with ".", got ${describeValue(key)}`,
    );
  }
  if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256))
    throw invalid(`sha256 must be 64 lowercase hex digits, got ${describeValue(sha256)}`);
  if (!Number.isSafeInteger(size) || (size as number) < 0) throw invalid(`size must be a non-negative integer, got ${describeValue(size)}`);
  if (!Number.isSafeInteger(expiresAt) || (expiresAt as number) < 0) {
    throw invalid(`expiresAt must be epoch milliseconds, got ${describeValue(expiresAt)}`);
  }
  return { version, key, sha256, size: size as number, expiresAt: expiresAt as number };
}

function invalid(problem: string): InvalidClaimCheckReferenceError {
  return new InvalidClaimCheckReferenceError(`The claim check reference ${problem}`);
}

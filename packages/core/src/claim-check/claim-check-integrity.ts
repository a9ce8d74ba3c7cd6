import { constants } from 'node:buffer';
import { createHash } from 'node:crypto';
import { ObjectNotFoundError } from './claim-check.errors';
import { ClaimCheckReference, DEFAULT_CLAIM_CHECK_MAX_BYTES } from './claim-check-reference';
import type { ObjectStore } from './object-store';

/** Why a claim check cannot be resolved, ever: the message is dead-lettered with this reason. */
export type ClaimCheckFailure = 'expired' | 'missing' | 'size' | 'digest';

/** The stored bytes, proven to be the producer's; or why they cannot be. */
export type ClaimCheckResolution = { valid: true; bytes: Buffer } | { valid: false; failure: ClaimCheckFailure; reason: string };

/**
 * Fetches the content a reference points to and proves it is the one the producer stored: expiry is checked before
 * the store is asked (an expired object may be gone, or replaced), size while reading (an oversized object is not
 * read to its end) and after, the SHA-256 digest after. The object is read once, into one buffer of the announced size.
 *
 * A failure of the content (expired, missing, wrong size — also a size above `maxBytes` —, wrong digest) is returned,
 * never thrown: retrying would read the same bytes. An error of the store itself (I/O, network) is thrown, since a
 * later attempt may succeed.
 * @param options.maxBytes largest size fetched (default {@link DEFAULT_CLAIM_CHECK_MAX_BYTES})
 * @param options.now epoch ms to compare `expiresAt` with
 */
export async function fetchClaimCheck(
  store: ObjectStore,
  reference: ClaimCheckReference,
  { maxBytes = DEFAULT_CLAIM_CHECK_MAX_BYTES, now = Date.now() }: { maxBytes?: number; now?: number } = {},
): Promise<ClaimCheckResolution> {
  if (reference.expiresAt <= now) {
    return refused('expired', `the claim check expired at ${new Date(reference.expiresAt).toISOString()}; its object was not read`);
  }
  if (reference.size > Math.min(maxBytes, constants.MAX_LENGTH)) {
    return refused(
      'size',
      `the claim check's size ${reference.size} bytes is above the consumer's maximum ${maxBytes}; its object was not read`,
    );
  }
  // Allocated before the store is asked, so nothing is left open if it cannot be.
  const bytes = Buffer.allocUnsafe(reference.size);
  let body: AsyncIterable<Buffer | string>;
  try {
    body = await store.get(reference.key);
  } catch (error) {
    if (error instanceof ObjectNotFoundError)
      return refused('missing', `no object is stored under the claim check's key ${JSON.stringify(reference.key)}`);
    throw error;
  }
  const hash = createHash('sha256');
  let read = 0;
  for await (const piece of body) {
    const chunk = typeof piece === 'string' ? Buffer.from(piece) : piece;
    if (read + chunk.length > reference.size) {
      // Stop early (leaving the loop destroys the stream): an object larger than announced is wrong, and may be huge.
      return refused('size', `the claim check's object ${JSON.stringify(reference.key)} is larger than its size ${reference.size} bytes`);
    }
    chunk.copy(bytes, read);
    hash.update(chunk);
    read += chunk.length;
  }
  if (read !== reference.size) {
    return refused('size', `the claim check's object ${JSON.stringify(reference.key)} has ${read} bytes, not its size ${reference.size}`);
  }
  const sha256 = hash.digest('hex');
  if (sha256 !== reference.sha256) {
    return refused('digest', `the claim check's object ${JSON.stringify(reference.key)} has SHA-256 ${sha256}, not ${reference.sha256}`);
  }
  return { valid: true, bytes };
}

function refused(failure: ClaimCheckFailure, reason: string): ClaimCheckResolution {
  return { valid: false, failure, reason };
}

/** The SHA-256 of `bytes` as the reference carries it: lowercase hex. */
export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

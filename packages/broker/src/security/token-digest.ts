import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Tokens are compared as SHA-256 digests: every digest has the same length whatever the token's, so the
 * comparison itself says nothing about how long the right token is.
 */
export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * The entry whose digest is the presented token's, compared in constant time against every entry (no early exit),
 * so the time taken says neither whether nor where a token matched.
 */
export function findByToken<T extends { readonly digest: Buffer }>(entries: readonly T[], presented: string): T | undefined {
  const digest = tokenDigest(presented);
  let found: T | undefined;
  for (const entry of entries) {
    const equal = timingSafeEqual(digest, entry.digest);
    found = equal && found === undefined ? entry : found;
  }
  return found;
}

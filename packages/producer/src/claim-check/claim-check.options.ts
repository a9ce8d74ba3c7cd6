import type { ObjectStore } from '@mmmq/core';

/** The producer's `claimCheck` option: where contents too large for a message go. */
export interface ProducerClaimCheckOptions {
  /** Where contents over `thresholdBytes` are stored: a `FileSystemObjectStore`, or your S3-compatible one. */
  store: ObjectStore;
  /**
   * Contents whose JSON text is larger than this, in UTF-8 bytes, are stored and replaced by a reference.
   * Default `DEFAULT_CLAIM_CHECK_THRESHOLD_BYTES` (1 MiB, the broker's default body limit).
   */
  thresholdBytes?: number;
  /**
   * How long a stored content stays valid, in ms from the publish: consumers refuse it afterwards, and the store may
   * delete it. Default `DEFAULT_CLAIM_CHECK_TTL_MS` (7 days, the broker's default topic retention).
   */
  ttlMs?: number;
}

/** `claimCheck` after defaults and validation. */
export interface ResolvedClaimCheck {
  store: ObjectStore;
  thresholdBytes: number;
  ttlMs: number;
}

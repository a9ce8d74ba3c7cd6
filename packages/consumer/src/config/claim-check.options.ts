import type { ObjectStore } from '@mmmq/core';

/** The consumer's `claimCheck` option: where the contents of claim checks are read from. */
export interface ConsumerClaimCheckOptions {
  /** The store the producers write to (the same directory, bucket …): a `FileSystemObjectStore` or your own. */
  store: ObjectStore;
  /**
   * Largest content fetched, in bytes: a reference announcing more is dead-lettered (reason `size`) without a read.
   * Default `DEFAULT_CLAIM_CHECK_MAX_BYTES` of @mmmq/core (256 MiB).
   */
  maxBytes?: number;
}

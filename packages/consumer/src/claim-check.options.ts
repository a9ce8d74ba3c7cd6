import type { ObjectStore } from '@mmmq/core';

/** The consumer's `claimCheck` option: where the contents of claim checks are read from. */
export interface ConsumerClaimCheckOptions {
  /** The store the producers write to (the same directory, bucket …): a `FileSystemObjectStore` or your own. */
  store: ObjectStore;
}

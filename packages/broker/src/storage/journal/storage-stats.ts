import { fsyncCount } from '../file-handle';

/** What the storage layer did since the broker started, for `GET /mmmq/storage` and the tests that count fsyncs. */
export class StorageStats {
  /** Journal records (commit groups) written. */
  commits = 0;
  flushes = 0;
  /** One per journal record. */
  journalFsyncs = 0;
  /** Topic and checkpoint files made durable by flushes. */
  flushFsyncs = 0;
  /**
   * nonPersistent messages acknowledged on receipt whose journal write then failed: lost although acknowledged
   * (each also logged). A crash loses others without a count: nothing is left to count them.
   */
  nonPersistentLost = 0;
  private readonly fsyncsAtStart = fsyncCount();

  /** Every fsync the storage layer made since this broker started (counted per process: one broker per process). */
  get totalFsyncs(): number {
    return fsyncCount() - this.fsyncsAtStart;
  }

  /** New files, directories, recovery: the rest. */
  get otherFsyncs(): number {
    return Math.max(0, this.totalFsyncs - this.journalFsyncs - this.flushFsyncs);
  }
}

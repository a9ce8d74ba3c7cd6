/** What the storage layer did since the broker started, for `GET /mmmq/storage` and the tests that count fsyncs. */
export class StorageStats {
  /** Journal records (commit groups) written. */
  commits = 0;
  flushes = 0;
  journalFsyncs = 0;
  flushFsyncs = 0;
  /** Directory syncs, new journal files, recovery. */
  otherFsyncs = 0;

  get totalFsyncs(): number {
    return this.journalFsyncs + this.flushFsyncs + this.otherFsyncs;
  }
}

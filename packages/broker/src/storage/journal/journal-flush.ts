import type { Flushable } from './journal-commit';
import type { JournalFiles } from './journal-files';
import { JournalOpKind } from './journal-record';
import type { StorageStats } from './storage-stats';

/** When the journal flushes: at the latest `intervalMs` after the last flush, sooner after `bytes` of records. */
export interface FlushSchedule {
  intervalMs: number;
  bytes: number;
}

/** What the flush needs of the journal it flushes. */
export interface FlushedJournal {
  readonly stats: StorageStats;
  /** Sequence number of the last record applied to the topic files. */
  readonly lastSeq: number;
  /** True while writes are refused (nothing to flush then). */
  readonly failed: boolean;
  commit(parts: [{ op: { kind: JournalOpKind.FLUSHED; seq: number } }]): Promise<unknown>;
  /** A flush fsync failed: the kernel may have dropped the pages, so writes stop until a restart replays. */
  stopWrites(cause: unknown): void;
}

/**
 * The journal's flush: it makes the dirty topic and checkpoint files durable, records that in the journal (a
 * FLUSHED op), then lets go of the journal files it covers. It runs at the latest `intervalMs` after the last one,
 * sooner once `bytes` of records were written, and never blocks commits (they go on while it fsyncs).
 */
export class JournalFlush {
  private readonly dirty = new Set<Flushable>();
  private bytesSinceFlush = 0;
  /** Last record holding more than a FLUSHED op: what a flush must cover. */
  private lastDataSeq = 0;
  private flushedSeq = 0;
  private files?: JournalFiles;
  private flushing?: Promise<void>;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly schedule: FlushSchedule,
    private readonly journal: FlushedJournal,
  ) {}

  /** Everything up to this sequence number is durable in the topic and checkpoint files. */
  get flushed(): number {
    return this.flushedSeq;
  }

  /** True when a flush has something to make durable. */
  get due(): boolean {
    return this.dirty.size > 0 || this.lastDataSeq > this.flushedSeq;
  }

  /** Starts flushing the journal's `files`, where recovery left them; files can be marked dirty before. */
  start(files: JournalFiles, recovered: { flushedSeq: number; lastDataSeq: number }): void {
    this.files = files;
    this.flushedSeq = recovered.flushedSeq;
    this.lastDataSeq = recovered.lastDataSeq;
    this.timer = setInterval(() => this.inBackground(), this.schedule.intervalMs).unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Registers something written that the next flush must make durable. */
  markDirty(target: Flushable): void {
    this.dirty.add(target);
  }

  /** Counts a record applied to the topic files; its bytes may start a flush. */
  recorded(seq: number, bytes: number, holdsData: boolean): void {
    if (holdsData) this.lastDataSeq = seq;
    this.bytesSinceFlush += bytes;
    if (this.bytesSinceFlush >= this.schedule.bytes) this.inBackground();
  }

  /** Flushes now, or joins the flush in progress. */
  run(): Promise<void> {
    this.flushing ??= this.flush().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private inBackground(): void {
    // A failure is logged (and stops writes) where it happens; nothing else to do with it here.
    this.run().catch(() => undefined);
  }

  private async flush(): Promise<void> {
    const files = this.files;
    if (!files || this.journal.failed) return;
    if (!this.due) return files.deleteCovered(this.flushedSeq);
    // Only records applied to the topic files count, and every topic they dirtied is in this snapshot.
    const upTo = this.journal.lastSeq;
    const targets = [...this.dirty];
    this.dirty.clear();
    for (const target of targets) target.flushStarting?.();
    try {
      for (const target of targets) this.journal.stats.flushFsyncs += await target.sync();
    } catch (cause) {
      this.journal.stopWrites(cause);
      throw cause;
    }
    this.bytesSinceFlush = 0;
    await this.journal.commit([{ op: { kind: JournalOpKind.FLUSHED, seq: upTo } }]);
    this.flushedSeq = upTo;
    for (const target of targets) target.flushed?.();
    this.journal.stats.flushes++;
    await files.deleteCovered(upTo);
  }
}

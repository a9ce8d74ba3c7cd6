import { Logger } from '@nestjs/common';
import { backgroundSyncs } from '../background-syncs';
import { isRetryableStorageError } from '../storage.errors';
import { describeCause } from './describe-cause';
import type { Flushable } from './journal-commit';
import type { JournalFiles } from './journal-files';
import { JournalOpKind } from './journal-record';
import type { StorageStats } from './storage-stats';

/** The first retry of a flush that failed for a passing reason (descriptors or space ran out); doubled per failure. */
export const FLUSH_RETRY_INITIAL_MS = 100;
/** The longest wait between two retries of a failing flush. */
export const FLUSH_RETRY_MAX_MS = 5_000;

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
  private readonly logger = new Logger(JournalFlush.name);
  private readonly dirty = new Set<Flushable>();
  /** While flushes fail for a passing reason: failures in a row, and when the next background attempt may run. */
  private retrying?: { failures: number; notBefore: number; timer?: NodeJS.Timeout };
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
    clearTimeout(this.retrying?.timer);
  }

  /** True while flushes fail for a passing reason and are retried with backoff. */
  get retryingAfterFailure(): boolean {
    return this.retrying !== undefined;
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
    // Backing off after a failure: the retry timer runs the next attempt.
    if (this.retrying && Date.now() < this.retrying.notBefore) return;
    // A failure is logged (and stops writes, or is retried) where it happens; nothing else to do with it here.
    this.run().catch(() => undefined);
  }

  /**
   * A flush failed before any fsync failed (a file or directory could not be opened for want of descriptors, a
   * checkpoint write found no space): nothing the kernel held was dropped, so the same flush can simply run again.
   * Its targets stay dirty and the journal keeps everything they need; commits go on meanwhile.
   */
  private retryLater(targets: readonly Flushable[], cause: unknown): void {
    for (const target of targets) this.dirty.add(target);
    const failures = (this.retrying?.failures ?? 0) + 1;
    const delayMs = Math.min(FLUSH_RETRY_MAX_MS, FLUSH_RETRY_INITIAL_MS * 2 ** Math.min(failures - 1, 16));
    clearTimeout(this.retrying?.timer);
    const timer = setTimeout(() => void this.run().catch(() => undefined), delayMs).unref();
    this.retrying = { failures, notBefore: Date.now() + delayMs, timer };
    if (failures === 1 || failures % 10 === 0) {
      this.logger.warn(
        `A flush failed (${describeCause(cause)}); the journal keeps everything it covers and writes go on; ` +
          `retrying in ${delayMs} ms (${failures} failure${failures === 1 ? '' : 's'} in a row)`,
      );
    }
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
      // A few at a time, beside the journal's own fsyncs rather than ahead of them (see BACKGROUND_SYNCS_MAX).
      await backgroundSyncs.each(targets, async (target) => {
        // Read after the await: targets sync concurrently, and `x += await y` would add to a stale value.
        const fsyncs = await target.sync();
        this.journal.stats.flushFsyncs += fsyncs;
      });
    } catch (cause) {
      if (isRetryableStorageError(cause)) this.retryLater(targets, cause);
      else this.journal.stopWrites(cause);
      throw cause;
    }
    if (this.retrying) {
      clearTimeout(this.retrying.timer);
      this.logger.log(`A flush succeeded after ${this.retrying.failures} failed attempt(s); flushing normally again`);
      this.retrying = undefined;
    }
    this.bytesSinceFlush = 0;
    await this.journal.commit([{ op: { kind: JournalOpKind.FLUSHED, seq: upTo } }]);
    this.flushedSeq = upTo;
    for (const target of targets) target.flushed?.();
    this.journal.stats.flushes++;
    await files.deleteCovered(upTo);
  }
}

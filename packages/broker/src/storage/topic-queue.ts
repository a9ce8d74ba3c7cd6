import { Logger } from '@nestjs/common';
import { Topic } from '@mmmq/core';
import { CheckpointDirectory } from './checkpoint-directory';
import { ClosedSegment, SegmentFileChain } from './segment-file-chain';
import { PurgeMark } from './purge-mark';
import { RecentEntries } from './recent-entries';
import { RecentEntriesBudget } from './recent-entries-budget';
import { CorruptionError, StorageUnavailableError } from './storage.errors';
import { Journal, WRITE_RECOVERY_DELAY_MS } from './journal/journal';
import { Flushable, JournalTopic } from './journal/journal-commit';
import { describeCause } from './journal/describe-cause';
import { settleAll } from './settle-all';

/**
 * A topic's log and its consumers' checkpoints. Offers are committed through the broker-wide journal; every offer
 * resolves with its offset once the journal record holding it is fsync'd and its entries are readable here (the
 * journal announces each such record on the broker's bus: `RecordsCommittedEvent`). Made by `TopicQueueFactory`;
 * `TopicQueueContainer` gives each topic's.
 */
export class TopicQueue implements JournalTopic, Flushable {
  private readonly logger = new Logger(TopicQueue.name);
  private recent: RecentEntries;
  /** Everything below it is committed and readable; the files may hold more while a group is being applied. */
  private visibleEnd: number;
  private failure?: { cause: unknown; at: number };
  private reopening?: Promise<void>;
  private closing?: Promise<void>;
  /** Everything below it is durable in the segment files and covered by a FLUSHED record: replay never needs it. */
  private durable: number;
  /** What the flush in progress covers, once its FLUSHED record is durable. */
  private flushing?: number;
  /** Segment removals, one at a time. */
  private removing: Promise<unknown> = Promise.resolve();

  constructor(
    readonly topic: Topic,
    readonly dir: string,
    readonly chain: SegmentFileChain,
    readonly checkpoints: CheckpointDirectory,
    private readonly recentBudget: RecentEntriesBudget,
    private readonly journal: Journal,
    /** Where a purge (of dead letters) moved the topic's start. */
    private readonly purgeMark: PurgeMark,
  ) {
    this.visibleEnd = chain.tailOffset;
    this.durable = chain.tailOffset;
    this.recent = new RecentEntries(chain.tailOffset, recentBudget.topicMaxBytes, recentBudget);
  }

  /** The offset of the oldest message kept; retention and a purge move it forward. */
  get startOffset(): number {
    return Math.max(this.chain.startOffset, this.purgedBelow);
  }

  /** Offsets below it were purged (0: none); never above the tail (see {@link repairPurgeMark}). */
  get purgedBelow(): number {
    return Math.min(this.purgeMark.below, this.visibleEnd);
  }

  /**
   * Once the topic is recovered: a purge mark above its tail (only possible when acknowledged entries were lost to
   * damage) is lowered to the tail, so that the entries appended from now on are not hidden below it. Resolves with
   * the mark found when it lowered one.
   */
  async repairPurgeMark(): Promise<number | undefined> {
    const found = this.purgeMark.below;
    if (found <= this.visibleEnd) return undefined;
    await this.purgeMark.lowerTo(this.visibleEnd);
    return found;
  }

  /**
   * Durably purges every entry below `offset` (capped at the tail): readers start past them from now on, and
   * retention deletes the segments wholly below. Resolves with the new start offset.
   */
  async purgeTo(offset: number): Promise<number> {
    await this.purgeMark.moveTo(Math.min(offset, this.visibleEnd));
    return this.startOffset;
  }

  /** Bytes of the segment data files (frames included). */
  get byteSize(): number {
    return this.chain.byteSize;
  }

  /** Entries below it need nothing from the journal any more: only segments ending at or below it are removed. */
  get durableEnd(): number {
    return Math.min(this.durable, this.visibleEnd);
  }

  flushStarting(): void {
    this.flushing = this.visibleEnd;
  }

  flushed(): void {
    if (this.flushing !== undefined) this.durable = Math.max(this.durable, this.flushing);
    this.flushing = undefined;
  }

  /**
   * Removes the oldest closed segments while `wanted` (called with each, oldest first) says so; stops at the tail, at
   * a segment the journal may still replay into (past {@link durableEnd}), or when the topic closes. Removals run
   * one at a time. Resolves with what was removed.
   */
  removeOldest(wanted: (segment: ClosedSegment) => boolean): Promise<ClosedSegment[]> {
    const run = this.removing.then(async () => {
      const removed: ClosedSegment[] = [];
      for (let [head] = this.chain.closedSegments(); head; [head] = this.chain.closedSegments()) {
        if (this.closing || head.endOffset > this.durableEnd || !wanted(head)) break;
        removed.push(await this.chain.removeHead());
      }
      return removed;
    });
    this.removing = run.catch(() => undefined);
    return run;
  }

  get name(): string {
    return this.topic.name;
  }

  /** The offset the next committed entry gets; everything below it is readable. */
  get tailOffset(): number {
    return this.visibleEnd;
  }

  get writtenEnd(): number {
    return this.chain.tailOffset;
  }

  /** Durably appends one payload and resolves with its offset. */
  async offer(payload: Buffer): Promise<number> {
    return this.offerAll([payload]);
  }

  /** Durably appends all payloads as one unit (all committed or none) and resolves with the first offset. */
  async offerAll(payloads: readonly Buffer[]): Promise<number> {
    // Checked without awaiting when writable, so a close() right after this call sees the commit in flight.
    if (!this.writable) await this.assertWritable();
    const [first] = await this.journal.commit([{ topic: this, payloads }]);
    return first as number;
  }

  /** False while closed or recovering from a failed file write. */
  get writable(): boolean {
    return !this.closing && !this.failure;
  }

  /** True from a failed file write until a later write finds the tail segment reopened. */
  get recoveringFromWriteFailure(): boolean {
    return this.failure !== undefined;
  }

  /**
   * Refuses a write while the topic is closed or recovering from a failed file write; after the refusal delay the
   * tail segment is reopened (its recovery re-reads what is really on disk) and writes resume.
   */
  async assertWritable(): Promise<void> {
    if (this.closing) {
      throw new StorageUnavailableError(`Topic ${this.topic.name} is closed; the publish was not stored`);
    }
    if (!this.failure) return;
    const waitedMs = Date.now() - this.failure.at;
    if (waitedMs < WRITE_RECOVERY_DELAY_MS) {
      throw new StorageUnavailableError(
        `Topic ${this.topic.name} could not store a message (${describeCause(this.failure.cause)}); nothing was written, retry later`,
        { cause: this.failure.cause, retryAfterMs: WRITE_RECOVERY_DELAY_MS - waitedMs },
      );
    }
    this.reopening ??= this.chain
      .reopenTail()
      .then(() => {
        this.failure = undefined;
        this.logger.log(`Topic ${this.topic.name}: tail segment reopened after a write failure; accepting writes again`);
      })
      .catch((cause: unknown) => {
        this.failure = { cause, at: Date.now() };
      })
      .finally(() => (this.reopening = undefined));
    await this.reopening;
    if (this.failure) await this.assertWritable();
  }

  write(frames: Buffer, starts: readonly number[]): Promise<void> {
    return this.chain.write(frames, starts);
  }

  publish(first: number, payloads: readonly Buffer[]): void {
    this.visibleEnd = first + payloads.length;
    this.recent.append(first, payloads);
  }

  async cutBack(offset: number): Promise<void> {
    await this.chain.truncateTo(offset);
    await this.chain.sync();
  }

  writeFailed(cause: unknown): void {
    this.failure = { cause, at: Date.now() };
    this.logger.error(
      `Topic ${this.topic.name}: writing its files failed (${describeCause(cause)}); the publishes being written are ` +
        `NACKed, writes are refused for ${WRITE_RECOVERY_DELAY_MS} ms, then the tail segment is reopened`,
    );
  }

  /** After the journal's replay wrote to the files directly: everything in them is committed and readable. */
  resumeAfterReplay(): void {
    // Replay synced what it wrote, and retention runs only after the journal's first flush recorded that.
    this.durable = this.chain.tailOffset;
    if (this.visibleEnd === this.chain.tailOffset) return;
    this.visibleEnd = this.chain.tailOffset;
    this.recent.close();
    this.recent = new RecentEntries(this.visibleEnd, this.recentBudget.topicMaxBytes, this.recentBudget);
  }

  /** Makes the topic's files durable up to everything written (the journal's flush). */
  sync(): Promise<number> {
    return this.chain.sync();
  }

  /** The committed payload at `offset`, or null when `offset` is at or past the tail. */
  peek(offset: number): Promise<Buffer | null> {
    if (offset >= this.visibleEnd) return Promise.resolve(null);
    const recent = this.recent.get(offset);
    return recent ? Promise.resolve(recent) : this.chain.read(offset);
  }

  /**
   * Up to `max` committed payloads from `offset` (fewer at the tail or a segment end; none past the tail).
   * Recent ones come from memory, older ones from one disk read; a damaged entry is its CorruptionError.
   */
  async peekMany(offset: number, max: number): Promise<Array<Buffer | CorruptionError>> {
    const end = Math.min(this.visibleEnd, offset + max);
    if (offset >= end) return [];
    const { start, end: recentEnd } = this.recent;
    if (offset < start || offset >= recentEnd) return this.chain.readMany(offset, (offset < start ? Math.min(end, start) : end) - offset);
    const entries: Buffer[] = [];
    for (let at = offset; at < Math.min(end, recentEnd); at++) entries.push(this.recent.get(at) as Buffer);
    return entries;
  }

  /** Durably records that `consumerId` should next receive `offset`. */
  async commit(consumerId: string, offset: number): Promise<void> {
    const checkpoint = await this.checkpoints.open(consumerId, offset, this.tailOffset);
    await checkpoint.write(offset);
  }

  /** Refuses new writes, waits for the commits in flight, then closes every file. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.journal.drain();
      await this.removing;
      this.recent.close();
      await settleAll([this.chain.close(), this.checkpoints.close()], `Closing topic ${this.topic.name} failed`);
    })();
    return this.closing;
  }
}

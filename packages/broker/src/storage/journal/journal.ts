import { performance } from 'node:perf_hooks';
import { FsyncMode, stricterFsync } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { DEFAULT_FSYNC_INTERVAL_MS } from '../../config/broker-options';
import { StorageUnavailableError } from '../storage.errors';
import { describeCause } from './describe-cause';
import { CommitPart, CommitRequest, Flushable } from './journal-commit';
import { JOURNAL_FILE_MAX_BYTES } from './journal-file';
import { JournalFileEntry, JournalFiles } from './journal-files';
import { FlushedJournal, FlushSchedule, JournalFlush } from './journal-flush';
import { AppendGroup, assembleGroup, encodeRecord } from './journal-group';
import { AppendOp, JournalOp, JournalOpKind } from './journal-record';
import type { JournalPorts } from './journal-ports';
import { RecordsCommittedEvent } from './records-committed.event';
import { StorageStats } from './storage-stats';

/** Upper bound of the payload bytes of one commit group, so one huge burst cannot hold every publisher's ACK. */
export const GROUP_COMMIT_MAX_BYTES = 4 * 1024 * 1024;
/**
 * Payload bytes waiting for the journal beyond which a nonPersistent publish is no longer answered on receipt but
 * once written, like a persistent one: publishers answered early would otherwise send faster than the disk writes,
 * and the queue would grow in memory without bound (and a crash would lose all of it). Four full commit groups.
 */
export const EARLY_ANSWER_MAX_PENDING_BYTES = 4 * GROUP_COMMIT_MAX_BYTES;
/** After a failed journal write the broker refuses writes this long before it reopens the journal and tries again. */
export const WRITE_RECOVERY_DELAY_MS = 1000;

/**
 * The topics a record touches: its appends' and those whose subscription state it moves. A state commit of an
 * in-process listener's subscription (its ACKs, written every few ms) is as much that listener's as a publish to its
 * topic: fsync'd on the event loop, it held the handlers and the producer up (362 of 430 fsyncs at saturation).
 */
function topicsOf(ops: readonly JournalOp[]): string[] {
  const topics: string[] = [];
  for (const op of ops) if (op.kind !== JournalOpKind.FLUSHED) topics.push(op.topic);
  return topics;
}

/** Where the journal stands when it opens, as recovery left it. */
export interface JournalStart {
  dir: string;
  /** The sequence number the next record gets. */
  nextSeq: number;
  /** Files still holding records (oldest first); deleted once a flush covers them. */
  files: JournalFileEntry[];
  /** Every record up to here is durable in the topic files. */
  flushedSeq: number;
  /** The last record holding more than a FLUSHED op. */
  lastDataSeq: number;
  /** A spare file to write the next journal file into, if one was left. */
  spare?: string;
}

/**
 * The broker-wide write-ahead journal: the commit point of every topic. Commits queue while a record is written
 * and fsync'd; the next record takes all of them at once, whatever topics they touch — one fdatasync for the whole
 * group. Only after that fsync are the entries written to their topics' files (page cache) and made visible.
 * Records are strictly sequential: record N+1 is written only once N is durable and applied.
 */
export class Journal implements FlushedJournal {
  private readonly logger = new Logger(Journal.name);
  private pending: CommitRequest[] = [];
  /** Payload bytes of `pending`. */
  private pendingBytes = 0;
  private running?: Promise<void>;
  private failure?: { cause: unknown; at: number; permanent: boolean };
  private files!: JournalFiles;
  private readonly flusher: JournalFlush;
  private nextSeq = 1;
  private closing?: Promise<void>;
  private closed = false;
  /** Commits made before `open` (a subscription attached while recovery opened its topic) wait for it. */
  private markOpen!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.markOpen = resolve));
  /** Records written without their fsync (`interval`, `never`) since the last fsync of the current file. */
  private unsynced = false;
  /** Set when an `interval` record's time is up: the next group is fsync'd, or an fsync runs alone. */
  private syncDue = false;
  private syncTimer?: NodeJS.Timeout;

  constructor(
    schedule: FlushSchedule,
    readonly stats: StorageStats = new StorageStats(),
    private readonly fsyncIntervalMs = DEFAULT_FSYNC_INTERVAL_MS,
    private readonly ports: JournalPorts = {},
  ) {
    this.flusher = new JournalFlush(schedule, this);
  }

  /**
   * Opens the journal for writing where recovery left it: records go to a new file named by the next sequence
   * number, and a first flush lets go of the files recovery replayed.
   */
  async open(start: JournalStart): Promise<void> {
    this.files = await JournalFiles.open(start.dir, start.nextSeq, start.files, start.spare);
    this.nextSeq = start.nextSeq;
    this.flusher.start(this.files, start);
    this.markOpen();
    await this.flush();
  }

  /** Sequence number of the last record written. */
  /** nonPersistent messages acknowledged on receipt whose commit then failed: lost, counted in {@link stats}. */
  countLost(messages: number): void {
    this.stats.nonPersistentLost += messages;
  }

  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Everything up to this sequence number is durable in the topic and checkpoint files. */
  get flushed(): number {
    return this.flusher.flushed;
  }

  /** True while writes are refused. */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** True when a commit made now is known to fail or may be refused: writes are refused, or the journal is closed. */
  get refusing(): boolean {
    return this.closed || this.failure !== undefined;
  }

  /**
   * False when a publish made now must wait for its write before it is answered, whatever its mode: writes are
   * refused, or more than {@link EARLY_ANSWER_MAX_PENDING_BYTES} wait for the journal (backpressure).
   */
  get mayAnswerEarly(): boolean {
    return !this.refusing && this.pendingBytes < EARLY_ANSWER_MAX_PENDING_BYTES;
  }

  get fileCount(): number {
    return this.files.count;
  }

  /** Bytes of the journal files, the current one counted as written so far. */
  byteSize(): Promise<number> {
    return this.files.byteSize();
  }

  /**
   * Makes every part durable in one record — all of them or none — and resolves with the first offset of each
   * topic part once they are visible. Concurrent commits made in one turn of the event loop share the record.
   * `answeredEarly`: the caller answered its publisher already (nonPersistent), so more publishes may arrive while
   * this one is fsync'd: its fsync never blocks the event loop. `fsync`: when the record is fsync'd (the topics'
   * flush policy); the promise resolves once it is written when that is not `always`. A record fsync'd covers every
   * record written before it, so modes mixed in one journal keep their order.
   */
  commit(parts: readonly CommitPart[], answeredEarly = false, fsync: FsyncMode = 'always'): Promise<Array<number | undefined>> {
    let bytes = 0;
    for (const part of parts) if ('topic' in part) for (const payload of part.payloads) bytes += payload.length;
    if (this.closed) {
      return Promise.reject(new StorageUnavailableError('The broker is shutting down; the journal is closed, nothing was written'));
    }
    return new Promise((resolve, reject) => {
      this.pending.push({ parts, bytes, answeredEarly, fsync, resolve, reject });
      this.pendingBytes += bytes;
      // Starting at the end of this turn of the event loop lets every commit read in the same turn join.
      this.running ??= this.opened.then(() => new Promise<void>((start) => setImmediate(start))).then(() => this.run());
    });
  }

  /** True while flushes fail for a passing reason (descriptors or space ran out) and are retried with backoff. */
  get flushRetrying(): boolean {
    return this.flusher.retryingAfterFailure;
  }

  /** Registers something written that the next flush must make durable. */
  markDirty(target: Flushable): void {
    this.flusher.markDirty(target);
  }

  /** Resolves once every commit submitted so far is settled. */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * Makes every record applied so far durable in the topic and checkpoint files, records that in the journal
   * (a FLUSHED op), then deletes the journal files it covers (see JournalFlush).
   */
  flush(): Promise<void> {
    return this.flusher.run();
  }

  stopWrites(cause: unknown): void {
    this.fail(cause, true);
  }

  private async run(): Promise<void> {
    try {
      while (this.pending.length > 0 || this.syncDue) {
        if (this.pending.length === 0) {
          await this.syncUnsynced();
          continue;
        }
        const requests = this.takeGroup();
        if (this.failure && !(await this.recover())) {
          this.rejectAll(requests, this.failure?.cause);
          continue;
        }
        await this.write(requests);
      }
    } finally {
      // Same function as the emptiness check, so no commit can slip in between the check and this reset.
      this.running = undefined;
    }
  }

  private takeGroup(): CommitRequest[] {
    let bytes = 0;
    let count = 0;
    while (count < this.pending.length && (count === 0 || bytes + this.pending[count].bytes <= GROUP_COMMIT_MAX_BYTES)) {
      bytes += this.pending[count].bytes;
      count++;
    }
    this.pendingBytes -= bytes;
    return this.pending.splice(0, count);
  }

  /** Writes one record for `requests`, fsyncs it, applies it to the topic files, then answers every request. */
  private async write(requests: CommitRequest[]): Promise<void> {
    const seq = this.nextSeq;
    const { appends, ops, firstOffsets, applies } = assembleGroup(requests);
    const { record, frameStarts } = encodeRecord(seq, ops);
    let recordStart = this.files.writing.size;
    const fsync = this.syncDue ? 'always' : requests.reduce<FsyncMode>((mode, request) => stricterFsync(mode, request.fsync), 'never');
    try {
      if (recordStart >= JOURNAL_FILE_MAX_BYTES) {
        // Records of a file are made durable by its own fsyncs: one closed with records that had none never gets one.
        if (this.unsynced) await this.syncUnsynced();
        await this.files.rotate(seq);
        recordStart = this.files.writing.size;
      }
      await this.files.writing.append(record);
      if (fsync === 'always') {
        // A lone commit has nothing to overlap with its fsync, unless other work waits for the event loop (pushes in
        // flight, or publishes after a nonPersistent one, answered already); a group's fsync leaves the event loop
        // to the next one.
        const alone = requests.length === 1 && !requests[0].answeredEarly;
        const syncStarted = performance.now();
        await this.files.writing.sync(alone && !this.ports.loopDemand?.needed(topicsOf(ops)));
        this.stats.journalFsyncs++;
        this.ports.observer?.recordWritten(requests.length, record.length, (performance.now() - syncStarted) / 1000);
        this.unsynced = false;
        this.syncDue = false;
      } else {
        this.unsynced = true;
        if (fsync === 'interval') this.syncWithinInterval();
      }
    } catch (cause) {
      await this.cutBack(recordStart, cause);
      this.fail(cause, false);
      this.rejectAll(requests, cause);
      return;
    }
    for (const [i, group] of appends.entries()) {
      const frames = record.subarray(frameStarts[i], frameStarts[i] + (ops[i] as AppendOp).frames.length);
      try {
        await group.topic.write(frames, group.starts);
      } catch (cause) {
        group.topic.writeFailed(cause);
        await this.undo(appends.slice(0, i + 1), recordStart);
        this.rejectAll(requests, cause);
        return;
      }
    }
    // From here on nothing can fail: the record counts, and everything in it becomes visible in this one turn.
    this.nextSeq = seq + 1;
    this.stats.commits++;
    for (const group of appends) {
      this.markDirty(group.topic);
      group.topic.publish(group.first, group.payloads);
    }
    if (appends.length > 0 && this.ports.bus) {
      this.ports.bus.emit(RecordsCommittedEvent.NAME, new RecordsCommittedEvent(appends.map((group) => group.topic)));
    }
    for (const apply of applies) {
      const target = apply();
      if (target) this.markDirty(target);
    }
    for (const [i, request] of requests.entries()) request.resolve(firstOffsets[i]);
    this.flusher.recorded(
      seq,
      record.length,
      ops.some((op) => op.kind !== JournalOpKind.FLUSHED),
    );
  }

  /** Arms the fsync of records written under `interval`, unless one is armed already. */
  private syncWithinInterval(): void {
    this.syncTimer ??= setTimeout(() => {
      this.syncTimer = undefined;
      this.syncDue = true;
      this.running ??= this.run();
    }, this.fsyncIntervalMs).unref();
  }

  /**
   * Fsyncs the records written without one. A failure stops writes for good, as a failed flush does: records that
   * were acknowledged may be lost, and an fsync is never retried (the kernel may have dropped the pages it failed
   * to write).
   */
  private async syncUnsynced(): Promise<void> {
    this.syncDue = false;
    if (!this.unsynced || this.failure) return;
    this.unsynced = false;
    try {
      await this.files.writing.sync(false);
      this.stats.journalFsyncs++;
    } catch (cause) {
      this.fail(
        cause,
        true,
        'The journal could not fsync records acknowledged before their fsync (fsync interval or never); they may be lost',
      );
    }
  }

  /**
   * A topic file write failed after the record was durable: cuts what the group wrote from every topic, then the
   * record from the journal, both durably, so the NACK it gets is never contradicted by a later replay. If that
   * fails too, the journal stops accepting writes (and the NACKed group may reappear after a crash: logged).
   */
  private async undo(written: AppendGroup[], recordStart: number): Promise<void> {
    // Every topic, even after one failed: a topic left uncut would keep entries its publisher was refused (seen when
    // descriptors ran out: one topic's directory could not be opened to fsync its cut, and the rest stayed uncut).
    // One after the other, as descriptors may be short.
    let failures = 0;
    let first: unknown;
    for (const group of written) {
      try {
        await group.topic.cutBack(group.first);
      } catch (error) {
        first ??= error;
        failures++;
      }
    }
    if (failures > 0) {
      this.logger.error(`Cutting a failed group back from ${failures} of its ${written.length} topics failed: ${describeCause(first)}`);
    }
    await this.cutBack(recordStart, new Error('a topic file write failed'));
  }

  /** Cuts the current journal file back to `size` (durably) after a failed group; failing that, stops writes. */
  private async cutBack(size: number, cause: unknown): Promise<void> {
    try {
      await this.files.writing.truncate(size);
    } catch (error) {
      this.fail(cause, false);
      this.logger.error(
        `The journal could not be cut back after a failed write (${describeCause(error)}); writes stop until it is ` +
          'reopened, and the NACKed group could reappear if the broker crashes before that',
      );
    }
  }

  private fail(cause: unknown, permanent: boolean, what?: string): void {
    if (this.failure?.permanent) return;
    const first = !this.failure;
    this.failure = { cause, at: Date.now(), permanent };
    if (!first) return;
    if (what !== undefined) {
      this.logger.error(`${what} (${describeCause(cause)}); the broker refuses writes until it is restarted`);
      return;
    }
    this.logger.error(
      permanent
        ? `A flush could not make the topic files durable (${describeCause(cause)}); the broker refuses writes until ` +
            'it is restarted, which replays the journal into the topic files'
        : `A journal write failed (${describeCause(cause)}); the publishes being written are NACKed and writes are ` +
            `refused for ${WRITE_RECOVERY_DELAY_MS} ms, then the journal is reopened`,
    );
  }

  /** After the refusal delay: cuts the current file back to its last good record and starts a new one. */
  private async recover(): Promise<boolean> {
    const failure = this.failure!;
    if (failure.permanent || Date.now() - failure.at < WRITE_RECOVERY_DELAY_MS) return false;
    try {
      await this.files.rotate(this.nextSeq);
      this.logger.log('The journal was reopened after a write failure; accepting writes again');
      this.failure = undefined;
      return true;
    } catch (cause) {
      this.failure = { cause, at: Date.now(), permanent: false };
      return false;
    }
  }

  private rejectAll(requests: CommitRequest[], cause: unknown): void {
    const retryAfterMs = Math.max(0, WRITE_RECOVERY_DELAY_MS - (Date.now() - (this.failure?.at ?? Date.now())));
    for (const request of requests) {
      request.reject(
        new StorageUnavailableError(`The journal could not store the commit (${describeCause(cause)}); nothing was written, retry later`, {
          cause,
          retryAfterMs: this.failure?.permanent ? 60_000 : retryAfterMs || WRITE_RECOVERY_DELAY_MS,
        }),
      );
    }
  }

  /**
   * Waits for pending commits, flushes (so a restart has nothing to replay), then closes the current file. The
   * topics are closed after this. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.flusher.stop();
      if (!this.files) return;
      await this.drain();
      await this.flush().catch((error: unknown) => this.logger.error(`The last flush failed: ${describeCause(error)}`));
      await this.drain();
      clearTimeout(this.syncTimer);
      await this.syncUnsynced();
      this.closed = true;
      await this.files.close();
    })();
    return this.closing;
  }
}

import type { Selector } from '@mmmq/core';
import type { TopicQueue } from '../../storage/topic-queue';
import { nextTurn, selectorTurnSpent } from '../selector-turn-budget';
import type { DeliveryLedger } from './delivery-ledger';
import { decodeEntry } from '../../format/decode-entry';
import type { TopicCancellations } from '../../publish/topic-cancellations';
import type { WindowBudget } from './window-budget';

/**
 * How far past the cursor a subscription reads: the most messages it tracks at once (leased, waiting, settled out
 * of order). A message that stays unsettled holds the window; at the limit nothing new is handed out.
 */
export const MAX_WINDOW = 10_000;
/** Messages read from the log at once. */
const READ_CHUNK = 1000;
/**
 * Read at least this many when reading at all: one read from disk for a run of single-message pushes. Priority
 * orders only what has been read, so on a backlog it applies within runs of about this many (docs/destinations.md#priority).
 */
const READ_AHEAD = 32;

/** What the reader needs from its subscription. */
export interface LogReaderHost {
  readonly stopping: boolean;
  /** A corrupt entry (or one that is not a message) is skipped: counted and logged. */
  skipCorrupt(offset: number, error: Error): void;
  /** `count` messages were skipped (settled) because the selector does not select them. */
  skipFiltered(count: number): void;
  /** Retention deleted the log below `start` while the cursor was below it: move past the gap (see DeliveryLedger.skipTo). */
  skipDeleted(start: number): void;
  /** Waits before retrying a failed read (storage errors other than corruption). */
  backoff(failures: number, what: string, error: unknown): Promise<void>;
}

/** Reads a subscription's topic into its ledger, one read at a time, in offset order. */
export class LogReader {
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly queue: TopicQueue,
    private readonly ledger: DeliveryLedger,
    private readonly host: LogReaderHost,
    /** The dispatcher's selector, parsed once; messages it does not select are settled as they are read. */
    private readonly selector?: Selector,
    /** The topic's cancellations, which the ledger asks: known from wherever a scheduled message is read on. */
    private readonly cancellations?: TopicCancellations,
    /** Bounds the bytes read ahead (see WindowBudget); without it only the window's count does. */
    private readonly budget?: WindowBudget,
  ) {}

  /** Average size of the entries read last, to read about as many as the byte bound leaves room for; 0: none read yet. */
  private entryBytes = 0;

  /** Reads until `max` messages are available, the log ends, or the window is full. */
  fill(max: number): Promise<void> {
    const run = this.reading.then(() => this.read(max));
    this.reading = run.catch(() => undefined);
    return run;
  }

  private async read(max: number): Promise<void> {
    const { ledger, queue } = this;
    for (let failures = 1; !this.host.stopping;) {
      if (ledger.available >= max) return;
      if (ledger.hasDue(Date.now())) {
        await this.promoteDue(max);
        continue;
      }
      const wanted = this.withinBytes(Math.min(Math.max(max, READ_AHEAD), MAX_WINDOW - ledger.windowSize, READ_CHUNK));
      const from = ledger.readEnd;
      if (from < queue.startOffset) {
        // Deleted by retention: skipped once the window before it is settled (until then nothing more is read).
        if (ledger.readEnd !== ledger.cursor) return;
        this.host.skipDeleted(queue.startOffset);
        continue;
      }
      if (wanted <= 0 || from >= queue.tailOffset) return;
      try {
        const entries = await queue.peekMany(from, wanted);
        // Retention may have deleted what was being read: those entries are not corrupt, just gone.
        if (from < queue.startOffset) continue;
        if (entries.length === 0 || ledger.readEnd !== from) return;
        this.learnSizes(entries);
        let filtered = 0;
        let full = false;
        for (let i = 0; i < entries.length; i++) {
          if (this.selector !== undefined && selectorTurnSpent()) {
            // Selectors are the costly part of a read: let publishes and requests in once the turn's budget is spent.
            if (filtered > 0) this.host.skipFiltered(filtered);
            filtered = 0;
            await nextTurn();
            // Meanwhile the subscription may have stopped or retention deleted what is held: read again from there.
            if (this.host.stopping || ledger.readEnd !== from + i || from + i < queue.startOffset) break;
          }
          const entry = entries[i];
          // The byte bound reached (the estimate read more than fits): the rest is read again once messages are settled.
          if ((full = !this.fits(entry))) break;
          const envelope = decodeEntry(entry);
          // A scheduled message is judged due at this time, here and by the ledger.
          let wallNow: number | undefined;
          if (!(envelope instanceof Error) && envelope.dueAt !== undefined) {
            wallNow = Date.now();
            if (envelope.dueAt <= wallNow && this.cancellations?.knows(from + i + 1) === false) {
              // Due, and its cancellation may lie past what is read: learnt first, then read again from here.
              await this.learnCancellations(from + i + 1);
              break;
            }
          }
          if (envelope instanceof Error) this.host.skipCorrupt(from + i, envelope);
          if (ledger.admit(envelope, entry instanceof Error ? 0 : entry.length, this.selector, wallNow)) filtered++;
        }
        if (filtered > 0) this.host.skipFiltered(filtered);
        if (full) return;
      } catch (error) {
        if (from < queue.startOffset) continue;
        await this.host.backoff(failures++, `reading offset ${from} failed`, error);
      }
    }
  }

  /**
   * How many of `count` entries to read within the byte bound: none when it is reached (reading pauses until messages
   * held are settled), else about as many as fit by the last entries' size (before any was read, a read-ahead run:
   * priority orders what was read); always one when nothing is held, so a message larger than the bound still flows,
   * one at a time.
   */
  private withinBytes(count: number): number {
    if (this.budget === undefined || count <= 0) return count;
    const held = this.ledger.heldBytes;
    const room = this.budget.room(held);
    if (held > 0 && room <= 0) return 0;
    if (this.entryBytes === 0) return Math.min(count, READ_AHEAD);
    return Math.min(count, Math.max(1, Math.floor(room / this.entryBytes)));
  }

  /** Whether `entry` may be held besides what is held already (always, when nothing is). */
  private fits(entry: Buffer | Error): boolean {
    if (this.budget === undefined || entry instanceof Error) return true;
    const held = this.ledger.heldBytes;
    return held === 0 || entry.length <= this.budget.room(held);
  }

  private learnSizes(entries: ReadonlyArray<Buffer | Error>): void {
    let bytes = 0;
    for (const entry of entries) if (!(entry instanceof Error)) bytes += entry.length;
    this.entryBytes = Math.max(1, Math.ceil(bytes / entries.length));
  }

  /**
   * Reads the entries of due scheduled messages again (their offsets only were kept) and makes them available, runs
   * of consecutive offsets in one read. One deleted by retention meanwhile is gone: settled, and counted as corrupt.
   */
  private async promoteDue(max: number): Promise<void> {
    // Cancellation records read are applied already; those past them must be known before anything is handed out.
    if (this.cancellations?.knows(this.ledger.readEnd) === false) await this.learnCancellations(this.ledger.readEnd);
    const due = this.ledger.dueOffsets(Date.now(), Math.min(Math.max(max, READ_AHEAD), READ_CHUNK));
    for (let run = 0; run < due.length;) {
      let end = run + 1;
      while (end < due.length && due[end] === due[end - 1] + 1) end++;
      const first = due[run];
      const entries = await this.readRun(first, end - run);
      // Stopping: left unsettled, so the state written keeps them for the next start.
      if (this.host.stopping) return;
      for (let i = 0; i < end - run; i++) {
        if (entries[i] === undefined && first + i >= this.queue.startOffset) continue;
        const entry = entries[i] ?? new Error(`offset ${first + i} was deleted by retention before it was due`);
        const envelope = decodeEntry(entry);
        if (this.ledger.admitDue(first + i, envelope, entry instanceof Error ? 0 : entry.length) && envelope instanceof Error) {
          this.host.skipCorrupt(first + i, envelope);
        }
      }
      run = end;
    }
  }

  /** Reads the log for cancellations from `from` on (once per topic, see TopicCancellations), retried on storage errors. */
  private async learnCancellations(from: number): Promise<void> {
    for (let failures = 1; this.cancellations && !this.host.stopping;) {
      try {
        return await this.cancellations.learnFrom(from);
      } catch (error) {
        await this.host.backoff(failures++, `reading offset ${from} on for cancellations failed`, error);
      }
    }
  }

  /** `count` entries from `first` (fewer when retention deleted some: those are missing), retried on storage errors. */
  private async readRun(first: number, count: number): Promise<Array<Buffer | Error | undefined>> {
    const entries: Array<Buffer | Error | undefined> = [];
    for (let failures = 1; entries.length < count;) {
      const at = first + entries.length;
      const start = Math.max(at, this.queue.startOffset);
      if (start >= first + count || this.host.stopping) break;
      try {
        const read = await this.queue.peekMany(start, first + count - start);
        if (read.length === 0) break;
        entries.push(...new Array<undefined>(start - at), ...read);
      } catch (error) {
        await this.host.backoff(failures++, `reading scheduled offset ${at} failed`, error);
      }
    }
    return entries;
  }
}

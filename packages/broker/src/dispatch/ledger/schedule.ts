import type { CancellationStatus } from '../../publish/topic-cancellations';
import { DueHeap } from './due-heap';
import { HeldOffsets } from './held-offsets';

/** What delivery asks of a topic's cancellations (`TopicCancellations`) before it hands a scheduled message out. */
export interface CancellationLookup {
  statusOf(offset: number): CancellationStatus | undefined;
}

/** How often a message held back by a cancellation being committed is looked at again (it is rarely long). */
export const HELD_BACK_RECHECK_MS = 20;

/**
 * Messages scheduled for a later time (a publish's `delayMs` / `deliverAt`) that a subscription's cursor has read:
 * not-yet-due ones as (due, offset) pairs in a {@link DueHeap}, every unsettled one in {@link HeldOffsets} (the
 * cursor moves past them; the state written keeps them unsettled). No object is kept per waiting message: a due one
 * is read again from the log when it is promoted to a slot, at most {@link MAX_PROMOTED} at once.
 */
export class Schedule {
  private readonly waiting = new DueHeap();
  readonly held = new HeldOffsets();
  /** Offsets taken from the heap whose entries are being read. */
  private readonly reading = new Set<number>();
  /** Promoted and not settled yet. */
  private readonly promotedOffsets = new Set<number>();
  /** Due, held back while a cancellation of them is being committed: due time by offset. */
  private readonly heldBack = new Map<number, number>();

  constructor(private readonly cancellations?: CancellationLookup) {}

  get promoted(): number {
    return this.promotedOffsets.size;
  }

  /** Waiting for their time (neither cancelled, nor taken to be promoted). */
  get size(): number {
    return this.held.size - this.promotedOffsets.size - this.reading.size;
  }

  add(offset: number, dueAt: number): void {
    this.held.append(offset);
    this.waiting.push(dueAt, offset);
  }

  /** Due ones (being read, or promoted and not settled) at offsets below `cursor`. */
  dueBelow(cursor: number): number {
    let count = 0;
    for (const offset of this.promotedOffsets) if (offset < cursor) count++;
    for (const offset of this.reading) if (offset < cursor) count++;
    return count;
  }

  /** Whether a message is due at `wallNow` and may be promoted now. */
  hasDue(wallNow: number): boolean {
    this.releaseHeldBack();
    return this.room() > 0 && (this.waiting.peekDue() ?? Infinity) <= wallNow;
  }

  /**
   * The earliest due time (epoch ms) worth a timer: none while the promoted ones fill the room. One held back is
   * looked at again soon (its cancellation's outcome wakes nothing when it fails).
   */
  nextDue(wallNow: number): number | undefined {
    if (this.room() <= 0) return undefined;
    const due = this.waiting.peekDue();
    return this.heldBack.size === 0 ? due : Math.min(due ?? Infinity, wallNow + HELD_BACK_RECHECK_MS);
  }

  /** Up to `max` offsets due at `wallNow`, lowest offset first: their entries are to be read ({@link promoting}). */
  takeDue(wallNow: number, max: number): number[] {
    this.releaseHeldBack();
    const due: number[] = [];
    const limit = Math.min(max, this.room());
    while (due.length < limit && (this.waiting.peekDue() ?? Infinity) <= wallNow) {
      const offset = this.waiting.pop()!;
      // Cancelled while it waited.
      if (!this.held.has(offset)) continue;
      this.reading.add(offset);
      due.push(offset);
    }
    return due.sort((a, b) => a - b);
  }

  /**
   * Whether `offset`, taken by {@link takeDue} and not promoted yet (a restart forgets it), is promoted now. Not when a
   * cancellation of it is committed (it is settled: `cancelled` is called) or being committed (it is held back until
   * that is decided).
   */
  promoting(offset: number, dueAt: number, cancelled: () => void): boolean {
    if (!this.reading.delete(offset)) return false;
    const cancellation = this.cancellations?.statusOf(offset);
    if (cancellation === 'cancelled') {
      this.held.delete(offset);
      cancelled();
      return false;
    }
    if (cancellation === 'pending') {
      this.heldBack.set(offset, dueAt);
      return false;
    }
    this.promotedOffsets.add(offset);
    return true;
  }

  /** Whether a cancellation of `offset` is committed (never deliver it). */
  isCancelled(offset: number): boolean {
    return this.cancellations?.statusOf(offset) === 'cancelled';
  }

  /** Whether one is being committed (not to be delivered until that is decided). */
  isCancelling(offset: number): boolean {
    return this.cancellations?.statusOf(offset) === 'pending';
  }

  /** A promoted message is settled. */
  settled(offset: number): void {
    if (this.promotedOffsets.delete(offset)) this.held.delete(offset);
  }

  /**
   * A cancellation read from the log: the message at `offset` is settled without being delivered, if it still
   * waits (false when it is due and being read or promoted already, or was never scheduled here).
   */
  cancel(offset: number): boolean {
    if (this.reading.has(offset) || this.promotedOffsets.has(offset)) return false;
    this.heldBack.delete(offset);
    return this.held.delete(offset);
  }

  clear(): void {
    this.heldBack.clear();
    this.waiting.clear();
    this.held.clear();
    this.reading.clear();
    this.promotedOffsets.clear();
  }

  /** Those held back whose cancellation is decided wait again, due: promoting them looks at it once more. */
  private releaseHeldBack(): void {
    if (this.heldBack.size === 0) return;
    for (const [offset, dueAt] of this.heldBack) {
      if (this.cancellations?.statusOf(offset) === 'pending') continue;
      this.heldBack.delete(offset);
      this.waiting.push(dueAt, offset);
    }
  }

  private room(): number {
    return MAX_PROMOTED - this.promoted - this.reading.size;
  }
}

/** Due messages promoted to slots and not settled yet, at most: the same bound as a subscription's window. */
export const MAX_PROMOTED = 10_000;

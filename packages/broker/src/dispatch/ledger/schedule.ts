import { DueHeap } from './due-heap';
import { HeldOffsets } from './held-offsets';

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
    return this.room() > 0 && (this.waiting.peekDue() ?? Infinity) <= wallNow;
  }

  /** The earliest due time (epoch ms) worth a timer: none while the promoted ones fill the room. */
  nextDue(): number | undefined {
    return this.room() > 0 ? this.waiting.peekDue() : undefined;
  }

  /** Up to `max` offsets due at `wallNow`, lowest offset first: their entries are to be read ({@link promoting}). */
  takeDue(wallNow: number, max: number): number[] {
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

  /** Whether `offset` was taken by {@link takeDue} and not promoted yet (a restart forgets it). */
  promoting(offset: number): boolean {
    if (!this.reading.delete(offset)) return false;
    this.promotedOffsets.add(offset);
    return true;
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
    return this.held.delete(offset);
  }

  clear(): void {
    this.waiting.clear();
    this.held.clear();
    this.reading.clear();
    this.promotedOffsets.clear();
  }

  private room(): number {
    return MAX_PROMOTED - this.promoted - this.reading.size;
  }
}

/** Due messages promoted to slots and not settled yet, at most: the same bound as a subscription's window. */
export const MAX_PROMOTED = 10_000;

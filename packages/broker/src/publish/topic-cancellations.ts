import { decodeEnvelope } from '../format/message-envelope';
import type { TopicQueue } from '../storage/topic-queue';

/** A cancellation of a scheduled message: committed, or being committed (its answer not known yet). */
export type CancellationStatus = 'cancelled' | 'pending';

/** Every cancellation record's id begins so (`POST /mmmq/scheduled/cancel` names them). */
export const CANCELLATION_ID_PREFIX = 'mmmq-cancel-';
/** How a cancellation record's payload begins: the log is scanned for it without decoding other entries. */
const CANCELLATION_HEAD = Buffer.from(`{"id":"${CANCELLATION_ID_PREFIX}`);
/** Entries read at once while scanning. */
const SCAN_CHUNK = 1000;

/**
 * The cancellations of one topic's scheduled messages, by target offset, as delivery must know them before it hands
 * a due scheduled message out: a subscription reads the log in order and may reach a message's time (or read it
 * when it is due already) long before it reads the cancellation record appended after it. Cancellations made in
 * this process are known from the moment they are asked for (pending) on; those written before it started are found
 * by reading the log once, from the lowest offset a subscription asks about ({@link learnFrom}) up to the tail the
 * topic had when this was created.
 */
export class TopicCancellations {
  private readonly cancelled = new Set<number>();
  /** Cancellations being committed, by target: how many. */
  private readonly pending = new Map<number, number>();
  /** Every cancellation record at or above it is known; those below are found by {@link learnFrom}. */
  private knownFrom: number;
  private scanning: Promise<void> = Promise.resolve();
  /** The size of `cancelled` after its last pruning: it is pruned again once it doubles. */
  private pruned = 0;

  constructor(readonly queue: TopicQueue) {
    this.knownFrom = queue.tailOffset;
  }

  statusOf(offset: number): CancellationStatus | undefined {
    if (this.cancelled.has(offset)) return 'cancelled';
    return this.pending.has(offset) ? 'pending' : undefined;
  }

  /** Whether every cancellation record at or above `from` is known. */
  knows(from: number): boolean {
    return this.knownFrom <= from;
  }

  /** A cancellation of `target` is about to be committed: until {@link settle}d, delivery holds the message back. */
  begin(target: number): void {
    this.pending.set(target, (this.pending.get(target) ?? 0) + 1);
  }

  /** The cancellation {@link begin} announced was committed (true) or not. */
  settle(target: number, committed: boolean): void {
    const count = this.pending.get(target) ?? 0;
    if (count > 1) this.pending.set(target, count - 1);
    else this.pending.delete(target);
    if (committed) this.add(target);
  }

  /** Reads the log from `from` up to what is known, once, for cancellation records written before this process. */
  learnFrom(from: number): Promise<void> {
    const run = this.scanning.then(() => this.scan(from));
    this.scanning = run.catch(() => undefined);
    return run;
  }

  private async scan(from: number): Promise<void> {
    const end = this.knownFrom;
    for (let at = from; ;) {
      // Deleted by retention (before or while this reads): nothing there is delivered any more.
      at = Math.max(at, this.queue.startOffset);
      if (at >= end) break;
      const entries = await this.queue.peekMany(at, Math.min(SCAN_CHUNK, end - at));
      if (entries.length === 0 && at >= this.queue.startOffset) throw new Error(`offset ${at} could not be read`);
      for (const entry of entries) {
        const cancels = entry instanceof Error ? undefined : cancelledBy(entry);
        if (cancels !== undefined) this.add(cancels);
      }
      at += entries.length;
    }
    this.knownFrom = Math.min(this.knownFrom, from);
  }

  private add(target: number): void {
    this.cancelled.add(target);
    if (this.cancelled.size < 2 * this.pruned + 16) return;
    // Deleted by retention: never delivered any more.
    for (const offset of this.cancelled) if (offset < this.queue.startOffset) this.cancelled.delete(offset);
    this.pruned = this.cancelled.size;
  }
}

/** The target of a cancellation record; undefined for any other entry (a damaged one is skipped, as delivery skips it). */
function cancelledBy(payload: Buffer): number | undefined {
  const head = CANCELLATION_HEAD.length;
  if (payload.length <= head || payload.compare(CANCELLATION_HEAD, 0, head, 0, head) !== 0) return undefined;
  try {
    return decodeEnvelope(payload).cancels;
  } catch {
    return undefined;
  }
}

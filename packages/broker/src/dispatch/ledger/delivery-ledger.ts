import type { Selector } from '@mmmq/core';
import type { DecodedEnvelope } from '../../publish/message-envelope';
import type { SubscriptionSnapshot } from '../../storage/subscription-snapshot';
import { MinHeap } from './min-heap';
import { newSlot, recordAttempt, Slot, SlotState } from './slot';

/** When a message has had enough deliveries. */
export interface RedeliveryLimits {
  /** Deliveries that may have reached a handler before the message is dead-lettered; -1 = no limit. */
  maxDeliveries: number;
  /** NACKs answered with a redelivery before the next one dead-letters it. */
  maxNackRetries: number;
}

/** How a delivery ended without an ACK. */
export interface Unsettled {
  /** What happened, for the history: `NACK`, `HTTP 503`, `TIMEOUT`, `LEASE_EXPIRED`, `RECOVER`, … */
  outcome: string;
  /** False when it cannot have reached a handler (a refused connection): the delivery is taken back. */
  counted: boolean;
  nack?: { message?: string };
  /** Not before this many ms (a NACK's delay). */
  delayMs?: number;
}

/** Why a message leaves for the dead-letter topic. */
export interface DeadLetterVerdict {
  reason: 'NACK' | 'MAX_DELIVERIES';
  lastError: string;
}

const EMPTY_ENVELOPE: DecodedEnvelope = { id: null, topic: '', publishedAt: null, headers: {}, content: Buffer.alloc(0) };

interface Expiry {
  deadline: number;
  slot: Slot;
  deliveries: number;
}

/**
 * The state of one subscription's window, pure and synchronous (time is passed in, on the monotonic clock): the
 * cursor, every message read past it and what happened to it — available, leased to a member until a deadline,
 * delayed, being dead-lettered, settled. Available messages are handed out lowest offset first, so one member
 * taking one window at a time gets them in order. Messages with the same ordering key are never leased twice at
 * once: the holder keeps the key until it is settled, the others wait in offset order.
 */
export class DeliveryLedger {
  cursor: number;
  /** The next offset to read from the log. */
  readEnd: number;
  /** Every unsettled offset below it may have been delivered (see SubscriptionSnapshot). */
  deliveredMark: number;
  /** Moves whenever the durable state would change. */
  version = 0;
  private readonly slots = new Map<number, Slot>();
  private readonly ready = new MinHeap<Slot>((a, b) => a.offset < b.offset);
  private readonly delayed = new MinHeap<Slot>((a, b) => a.availableAt < b.availableAt);
  private readonly expiries = new MinHeap<Expiry>((a, b) => a.deadline < b.deadline);
  private readonly keyHolders = new Map<string, Slot>();
  private readonly keyWaiting = new Map<string, Slot[]>();
  /** Restored state for offsets not read yet. */
  private readonly restoredSettled: Array<[number, number]>;
  private readonly restoredCounts = new Map<number, { deliveries: number; nacks: number }>();
  private readonly restoredMark: number;
  private leasedCount = 0;

  constructor(
    snapshot: SubscriptionSnapshot,
    private readonly limits: RedeliveryLimits,
  ) {
    this.cursor = snapshot.cursor;
    this.readEnd = snapshot.cursor;
    this.deliveredMark = snapshot.deliveredMark;
    this.restoredMark = snapshot.deliveredMark;
    this.restoredSettled = snapshot.settled.map(([first, end]) => [first, end]);
    for (const { offset, deliveries, nacks } of snapshot.counts) this.restoredCounts.set(offset, { deliveries, nacks });
  }

  /** Messages read and not settled. */
  get windowSize(): number {
    return this.readEnd - this.cursor;
  }

  get leased(): number {
    return this.leasedCount;
  }

  get available(): number {
    return this.ready.size;
  }

  /**
   * Adds the next offset read from the log. A corrupt entry (an Error) and one the snapshot says was settled are
   * settled at once, and so is a message the `selector` does not select: then it returns true (skipped, to be
   * counted). A restored count or the delivery mark says how often it may have been delivered before.
   */
  admit(envelope: DecodedEnvelope | Error, bytes: number, selector?: Selector): boolean {
    const offset = this.readEnd;
    const settled = envelope instanceof Error || this.wasSettled(offset);
    // Judged once, when read (before anything changes, should the selector throw); settled ones are not judged.
    const skipped = !settled && selector !== undefined && !selector.matches(envelope.headers);
    this.readEnd++;
    const restored = this.restoredCounts.get(offset);
    this.restoredCounts.delete(offset);
    if (settled || skipped) {
      const slot = newSlot(offset, EMPTY_ENVELOPE, 0, 0, 0);
      slot.state = SlotState.SETTLED;
      slot.envelope = undefined;
      this.slots.set(offset, slot);
      // A skip settles a message like an ACK: the state on disk must move past it too.
      if (skipped) this.version++;
      this.advance();
      return skipped;
    }
    const deliveries = Math.max(restored?.deliveries ?? 0, offset < this.restoredMark ? 1 : 0);
    const slot = newSlot(offset, envelope, bytes, deliveries, restored?.nacks ?? 0);
    this.slots.set(offset, slot);
    this.ready.push(slot);
    return false;
  }

  /**
   * Retention deleted the log below `start`: when nothing is read past the cursor, it jumps to `start`, and the
   * offsets it passes count as skipped (returned). With messages still in the window it waits (returns 0): they are
   * in memory and are delivered first; the next read past them skips.
   */
  skipTo(start: number): number {
    if (this.readEnd >= start || this.readEnd !== this.cursor) return 0;
    const skipped = start - this.cursor;
    this.cursor = this.readEnd = start;
    while (this.restoredSettled.length > 0 && this.restoredSettled[0][1] <= start) this.restoredSettled.shift();
    for (const offset of this.restoredCounts.keys()) if (offset < start) this.restoredCounts.delete(offset);
    this.version++;
    return skipped;
  }

  /**
   * Leases up to `max` available messages (at least one, then up to `maxBytes` of payload) to `member`, lowest
   * offset first, skipping messages whose ordering key is held. Each lease counts as a delivery.
   */
  take(member: string, max: number, maxBytes: number, now: number, leaseMs: number): Slot[] {
    this.promote(now);
    const taken: Slot[] = [];
    let bytes = 0;
    while (taken.length < max && this.ready.size > 0) {
      const slot = this.ready.peek()!;
      const holder = slot.key === undefined ? undefined : this.keyHolders.get(slot.key);
      if (holder && holder !== slot) {
        this.ready.pop();
        this.waitForKey(slot);
        continue;
      }
      if (taken.length > 0 && bytes + slot.bytes > maxBytes) break;
      this.ready.pop();
      if (slot.key !== undefined) this.keyHolders.set(slot.key, slot);
      slot.state = SlotState.LEASED;
      slot.member = member;
      slot.deliveries++;
      slot.deadline = now + leaseMs;
      if (Number.isFinite(slot.deadline)) this.expiries.push({ deadline: slot.deadline, slot, deliveries: slot.deliveries });
      this.leasedCount++;
      if (slot.deliveries > 1) this.version++;
      bytes += slot.bytes;
      taken.push(slot);
    }
    return taken;
  }

  /** The leased slot at `offset`, if `delivery` (when given) is its current delivery. */
  leaseAt(offset: number, delivery?: number): Slot | undefined {
    const slot = this.slots.get(offset);
    if (!slot || slot.state !== SlotState.LEASED) return undefined;
    return delivery === undefined || slot.deliveries === delivery ? slot : undefined;
  }

  /** The leased slot holding the message with this id. */
  leaseOfId(id: string, topic: string): Slot | undefined {
    for (const slot of this.slots.values()) {
      if (slot.state === SlotState.LEASED && (slot.envelope?.id ?? `${topic}@${slot.offset}`) === id) return slot;
    }
    return undefined;
  }

  /** The slots `member` holds, lowest offset first. */
  leasesOf(member: string): Slot[] {
    return [...this.slots.values()].filter((slot) => slot.state === SlotState.LEASED && slot.member === member);
  }

  /** ACKed (or dead-lettered, or settled on send): done for good. */
  settle(slot: Slot): void {
    if (slot.state === SlotState.SETTLED) return;
    if (slot.state === SlotState.LEASED) this.leasedCount--;
    slot.state = SlotState.SETTLED;
    slot.envelope = undefined;
    slot.member = undefined;
    this.version++;
    if (slot.key !== undefined && this.keyHolders.get(slot.key) === slot) this.releaseKey(slot.key);
    this.advance();
  }

  /**
   * A leased message comes back unsettled. Returns a verdict when it must be dead-lettered instead (the slot is
   * then DEAD_LETTERING until {@link settle}); otherwise it is available again (after `delayMs`), keeping its key.
   */
  release(slot: Slot, how: Unsettled, now: number): DeadLetterVerdict | undefined {
    if (slot.state !== SlotState.LEASED) return undefined;
    this.leasedCount--;
    if (!how.counted) slot.deliveries--;
    recordAttempt(slot, how.outcome);
    slot.member = undefined;
    slot.deadline = Infinity;
    this.version++;
    const verdict = this.verdictOf(slot, how);
    if (verdict) {
      slot.state = SlotState.DEAD_LETTERING;
      return verdict;
    }
    if (how.delayMs && how.delayMs > 0) {
      slot.state = SlotState.DELAYED;
      slot.availableAt = now + how.delayMs;
      this.delayed.push(slot);
    } else {
      slot.state = SlotState.AVAILABLE;
      this.ready.push(slot);
    }
    return undefined;
  }

  /**
   * Moves a lease's deadline to `now + leaseMs`; false if it is no longer leased. A push lease has no deadline here
   * (the push's reply timeout governs it): it records how long its reply may now take.
   */
  extend(slot: Slot, now: number, leaseMs: number): boolean {
    if (slot.state !== SlotState.LEASED) return false;
    if (!Number.isFinite(slot.deadline)) {
      slot.extendedUntil = now + leaseMs;
      return true;
    }
    slot.deadline = now + leaseMs;
    this.expiries.push({ deadline: slot.deadline, slot, deliveries: slot.deliveries });
    return true;
  }

  /** A leased message is to be dead-lettered now (the consumer said retrying cannot help): settle it after. */
  terminate(slot: Slot, outcome: string): boolean {
    if (slot.state !== SlotState.LEASED) return false;
    this.leasedCount--;
    recordAttempt(slot, outcome);
    slot.member = undefined;
    slot.state = SlotState.DEAD_LETTERING;
    return true;
  }

  /** Records that offsets below `mark` may be handed out (see SubscriptionSnapshot.deliveredMark). */
  reserveMark(mark: number): void {
    if (mark <= this.deliveredMark) return;
    this.deliveredMark = mark;
    this.version++;
  }

  /**
   * Leases whose deadline has passed, each once (each still LEASED: the caller releases them). A lease extended to
   * the same deadline, or taken back and leased again to it, has two heap entries that both match it.
   */
  expired(now: number): Slot[] {
    const due = new Set<Slot>();
    for (let top = this.expiries.peek(); top && top.deadline <= now; top = this.expiries.peek()) {
      this.expiries.pop();
      const { slot } = top;
      if (slot.state === SlotState.LEASED && slot.deliveries === top.deliveries && slot.deadline === top.deadline) due.add(slot);
    }
    return [...due];
  }

  /** The next moment something is due (a lease ends, a delay is over), on the monotonic clock. */
  nextDue(): number | undefined {
    const times = [this.expiries.peek()?.deadline, this.delayed.peek()?.availableAt].filter((t) => t !== undefined);
    return times.length > 0 ? Math.min(...(times as number[])) : undefined;
  }

  /** Delayed messages whose delay is over become available. */
  promote(now: number): void {
    for (let top = this.delayed.peek(); top && top.availableAt <= now; top = this.delayed.peek()) {
      this.delayed.pop();
      if (top.state !== SlotState.DELAYED) continue;
      top.state = SlotState.AVAILABLE;
      this.ready.push(top);
    }
  }

  /** What must survive a restart (see SubscriptionSnapshot). */
  snapshot(): SubscriptionSnapshot {
    const settled: Array<[number, number]> = [];
    const counts: SubscriptionSnapshot['counts'] = [];
    for (let offset = this.cursor; offset < this.readEnd; offset++) {
      const slot = this.slots.get(offset)!;
      if (slot.state === SlotState.SETTLED) {
        const last = settled[settled.length - 1];
        if (last && last[1] === offset) last[1]++;
        else settled.push([offset, offset + 1]);
      } else if (slot.deliveries > 1 || slot.nacks > 0) {
        counts.push({ offset, deliveries: slot.deliveries, nacks: slot.nacks });
      }
    }
    for (const [first, end] of this.restoredSettled) if (end > this.readEnd) settled.push([Math.max(first, this.readEnd), end]);
    for (const [offset, count] of this.restoredCounts) counts.push({ offset, ...count });
    return { cursor: this.cursor, settled, counts, deliveredMark: Math.max(this.deliveredMark, this.cursor) };
  }

  /**
   * Whether a NACK of the slot's current delivery dead-letters it instead of making it available again: its NACK
   * retries are used up, or it has had `maxDeliveries` deliveries (then any counted failure dead-letters it too).
   * Never with `maxDeliveries` -1 while NACK retries are left. Mirrors {@link verdictOf}.
   */
  isLastAttempt(slot: Slot): boolean {
    const { maxDeliveries, maxNackRetries } = this.limits;
    return slot.nacks >= maxNackRetries || (maxDeliveries >= 0 && slot.deliveries >= maxDeliveries);
  }

  private verdictOf(slot: Slot, how: Unsettled): DeadLetterVerdict | undefined {
    const { maxDeliveries, maxNackRetries } = this.limits;
    if (how.nack && ++slot.nacks > maxNackRetries) return { reason: 'NACK', lastError: how.nack.message ?? 'NACK without a message' };
    if (how.counted && maxDeliveries >= 0 && slot.deliveries >= maxDeliveries) {
      return { reason: 'MAX_DELIVERIES', lastError: `${slot.deliveries} deliveries, the last: ${how.outcome}` };
    }
    return undefined;
  }

  private wasSettled(offset: number): boolean {
    while (this.restoredSettled.length > 0 && this.restoredSettled[0][1] <= offset) this.restoredSettled.shift();
    return this.restoredSettled.length > 0 && this.restoredSettled[0][0] <= offset;
  }

  private waitForKey(slot: Slot): void {
    const waiting = this.keyWaiting.get(slot.key!);
    if (waiting) waiting.push(slot);
    else this.keyWaiting.set(slot.key!, [slot]);
  }

  private releaseKey(key: string): void {
    this.keyHolders.delete(key);
    const waiting = this.keyWaiting.get(key);
    this.keyWaiting.delete(key);
    for (const slot of waiting ?? []) this.ready.push(slot);
  }

  private advance(): void {
    for (let slot = this.slots.get(this.cursor); slot?.state === SlotState.SETTLED; slot = this.slots.get(this.cursor)) {
      this.slots.delete(this.cursor++);
    }
  }
}

import type { Selector } from '@mmmq/core';
import type { DecodedEnvelope } from '../../format/message-envelope';
import type { SubscriptionSnapshot } from '../../storage/subscription-snapshot';
import type { LeaseWatcher } from './lease-watcher';
import type { WindowBytes } from './window-budget';
import { MinHeap } from './min-heap';
import { CancellationLookup, Schedule } from './schedule';
import { byOffset, byPriority, newSlot, recordAttempt, Slot, SlotState } from './slot';

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

/**
 * Where a scheduled message not due yet lies in the window: passed by the cursor like a settled slot, but written
 * as unsettled (it is in the {@link Schedule}'s held offsets).
 */
const SCHEDULED = newSlot(-1, EMPTY_ENVELOPE, 0, 0, 0);
SCHEDULED.state = SlotState.SETTLED;

interface Expiry {
  deadline: number;
  slot: Slot;
  deliveries: number;
}

/** Stale entries the expiry heap may hold beyond its live ones before they are dropped (see `watchDeadline`). */
const EXPIRIES_KEPT_STALE = 1024;

/** Whether the lease an expiry entry was made for still runs, to that deadline. */
const isLive = ({ slot, deliveries, deadline }: Expiry): boolean =>
  slot.state === SlotState.LEASED && slot.deliveries === deliveries && slot.deadline === deadline;

/**
 * The state of one subscription's window, pure and synchronous (time is passed in: leases and delays on the
 * monotonic clock, message expiry on the wall clock): the cursor, every message read past it and what happened to
 * it — available, leased to a member until a deadline, delayed, being dead-lettered, settled. Available messages
 * are handed out highest priority first and lowest offset first within a priority (a `strictOrder` ledger ignores
 * priority), so one member taking one window at a time gets them in that order. Messages with the same ordering key
 * are never leased twice at once and go out in offset order whatever their priority: only the oldest unsettled one
 * of a key (its holder) is available; it keeps the key until it is settled, the others wait in offset order. A
 * message past its `expiresAt` is never handed out: a take sets it aside (see {@link expiredMessages}).
 */
export class DeliveryLedger {
  cursor: number;
  /** The next offset to read from the log. */
  readEnd: number;
  /** Every unsettled offset below it may have been delivered (see SubscriptionSnapshot). */
  deliveredMark: number;
  /** Every offset handed out lies below it (or below the restored mark): where the mark may drop to at a stop. */
  private handedOutEnd: number;
  /** Moves whenever the durable state would change. */
  version = 0;
  private readonly slots = new Map<number, Slot>();
  private readonly ready: MinHeap<Slot>;
  private readonly delayed = new MinHeap<Slot>((a, b) => a.availableAt < b.availableAt);
  private readonly expiries = new MinHeap<Expiry>((a, b) => a.deadline < b.deadline);
  private readonly keyHolders = new Map<string, Slot>();
  private readonly keyWaiting = new Map<string, Slot[]>();
  /** Restored state for offsets not read yet. */
  private readonly restoredSettled: Array<[number, number]>;
  private readonly restoredCounts = new Map<number, { deliveries: number; nacks: number }>();
  private restoredMark: number;
  private leasedCount = 0;
  private expiredFound: Slot[] = [];
  /** Slots given up (dropped, dead-lettered) while they waited in the ready heap: `take` pops and skips them. */
  private staleReady = 0;
  /** Scheduled messages read before their time (docs/delivery.md#scheduled-messages). */
  private readonly schedule: Schedule;
  /** Payload bytes of the slots not settled (see WindowBudget). */
  private heldTotal = 0;

  constructor(
    snapshot: SubscriptionSnapshot,
    private readonly limits: RedeliveryLimits,
    /** Offset order whatever the priorities (an exclusive dispatcher's subscription). */
    strictOrder = false,
    /** Told of every lease that starts and ends (the consumer's index of leases by message id). */
    private readonly watcher?: LeaseWatcher,
    /**
     * The topic's cancellations, asked before a due scheduled message is handed out (its cancellation record may lie
     * beyond what was read); without it only the records read count.
     */
    cancellations?: CancellationLookup,
    /** Told of the bytes held, for the broker-wide bound; let go of by {@link detach}. */
    private windowBytes?: WindowBytes,
  ) {
    this.schedule = new Schedule(cancellations);
    this.ready = new MinHeap<Slot>(strictOrder ? byOffset : byPriority);
    this.cursor = snapshot.cursor;
    this.readEnd = snapshot.cursor;
    this.deliveredMark = snapshot.deliveredMark;
    this.restoredMark = snapshot.deliveredMark;
    this.handedOutEnd = snapshot.deliveredMark;
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

  /** Payload bytes of the messages read and not settled: available, leased, delayed, waiting for a key. */
  get heldBytes(): number {
    return this.heldTotal;
  }

  /** The subscription stopped: what it holds no longer counts towards the broker's bound, nor what it reads after. */
  detach(): void {
    this.windowBytes?.add(-this.heldTotal);
    this.windowBytes = undefined;
  }

  get available(): number {
    return this.ready.size - this.staleReady;
  }

  /**
   * Adds the next offset read from the log. A corrupt entry (an Error) and one the snapshot says was settled are
   * settled at once, and so is a message the `selector` does not select: then it returns true (skipped, to be
   * counted). A restored count or the delivery mark says how often it may have been delivered before.
   */
  admit(envelope: DecodedEnvelope | Error, bytes: number, selector?: Selector, wallNow = Date.now()): boolean {
    const offset = this.readEnd;
    // A cancellation is never delivered, and applies even when read again (after a restart it was settled already).
    if (!(envelope instanceof Error) && envelope.cancels !== undefined && this.schedule.cancel(envelope.cancels)) this.version++;
    // Its cancellation is committed, its record not read yet: never delivered either.
    const cancelled = !(envelope instanceof Error) && envelope.dueAt !== undefined && this.schedule.isCancelled(offset);
    const settled = envelope instanceof Error || envelope.cancels !== undefined || cancelled || this.wasSettled(offset);
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
    if (envelope.dueAt !== undefined && (envelope.dueAt > wallNow || this.schedule.isCancelling(offset))) {
      // Not due (or due, and a cancellation of it is being committed: promoting it decides): never delivered yet,
      // whatever the mark says. Read again from the log once due.
      this.schedule.add(offset, envelope.dueAt);
      this.slots.set(offset, SCHEDULED);
      this.advance();
      return false;
    }
    // A restored count is the truth, 0 included (handed out, then given back unsent); else the mark says.
    const deliveries = restored?.deliveries ?? (offset < this.restoredMark ? 1 : 0);
    const slot = newSlot(offset, envelope, bytes, deliveries, restored?.nacks ?? 0);
    this.slots.set(offset, slot);
    this.hold(slot);
    if (slot.key === undefined || !this.keyHolders.has(slot.key)) {
      if (slot.key !== undefined) this.keyHolders.set(slot.key, slot);
      this.ready.push(slot);
    } else {
      this.waitForKey(slot);
    }
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
   * A seek: the window starts over at `snapshot` (see SeekPlan), as if restored from it. Every slot of the old window
   * is given up — leases end (their ACKs change nothing any more: the slot reads SETTLED), waiting messages are
   * forgotten and read again from the new cursor. A slot being dead-lettered is left to its dead-lettering. Returns the
   * leases it ended.
   */
  restart(snapshot: SubscriptionSnapshot): number {
    let ended = 0;
    for (const slot of this.slots.values()) {
      if (slot.state === SlotState.DEAD_LETTERING) continue;
      this.unhold(slot);
      if (slot.state === SlotState.LEASED) {
        this.endLease(slot);
        ended++;
      }
      slot.state = SlotState.SETTLED;
      slot.member = undefined;
    }
    this.slots.clear();
    this.schedule.clear();
    for (const heap of [this.ready, this.delayed, this.expiries] as Array<MinHeap<unknown>>) while (heap.size > 0) heap.pop();
    this.keyHolders.clear();
    this.keyWaiting.clear();
    this.restoredCounts.clear();
    this.restoredSettled.splice(0, this.restoredSettled.length, ...snapshot.settled.map(([first, end]): [number, number] => [first, end]));
    for (const { offset, deliveries, nacks } of snapshot.counts) this.restoredCounts.set(offset, { deliveries, nacks });
    this.cursor = this.readEnd = snapshot.cursor;
    this.deliveredMark = this.restoredMark = this.handedOutEnd = snapshot.deliveredMark;
    this.staleReady = 0;
    this.version++;
    return ended;
  }

  /**
   * Leases up to `max` available messages (at least one, then up to `maxBytes` of payload) to `member`, highest
   * priority first, then lowest offset. Each lease counts as a delivery. A message whose `expiresAt` is not after
   * `wallNow` (epoch ms) is not leased but set aside, DEAD_LETTERING, for {@link expiredMessages}.
   */
  take(member: string, max: number, maxBytes: number, now: number, leaseMs: number, wallNow = Date.now()): Slot[] {
    this.promote(now);
    const taken: Slot[] = [];
    let bytes = 0;
    while (taken.length < max && this.ready.size > 0) {
      const slot = this.ready.peek()!;
      // Given up (a backlog limit) while it waited in the heap: nothing to hand out.
      if (slot.state !== SlotState.AVAILABLE) {
        this.ready.pop();
        this.staleReady--;
        continue;
      }
      if (slot.expiresAt <= wallNow) {
        this.ready.pop();
        slot.state = SlotState.DEAD_LETTERING;
        this.expiredFound.push(slot);
        continue;
      }
      if (taken.length > 0 && bytes + slot.bytes > maxBytes) break;
      this.ready.pop();
      slot.state = SlotState.LEASED;
      slot.member = member;
      slot.deliveries++;
      // Handed out before: the state on disk may say it never was (given back unsent); it must be written again.
      if (slot.offset < this.handedOutEnd) this.version++;
      else this.handedOutEnd = slot.offset + 1;
      slot.deadline = now + leaseMs;
      if (Number.isFinite(slot.deadline)) this.watchDeadline(slot);
      this.leasedCount++;
      this.watcher?.leased(slot);
      if (slot.deliveries > 1) this.version++;
      bytes += slot.bytes;
      taken.push(slot);
    }
    return taken;
  }

  /**
   * The messages takes found expired since the last call, each once: DEAD_LETTERING, never leased again. The caller
   * dead-letters them (reason `EXPIRED`) or drops them, then {@link settle}s them.
   */
  expiredMessages(): Slot[] {
    const found = this.expiredFound;
    this.expiredFound = [];
    return found;
  }

  /** The leased slot at `offset`, if `delivery` (when given) is its current delivery. */
  leaseAt(offset: number, delivery?: number): Slot | undefined {
    const slot = this.slots.get(offset);
    if (!slot || slot.state !== SlotState.LEASED) return undefined;
    return delivery === undefined || slot.deliveries === delivery ? slot : undefined;
  }

  /** The slots `member` holds, lowest offset first. */
  leasesOf(member: string): Slot[] {
    return [...this.slots.values()].filter((slot) => slot.state === SlotState.LEASED && slot.member === member);
  }

  /** Every leased slot, lowest offset first. */
  leasedSlots(): Slot[] {
    return [...this.slots.values()].filter((slot) => slot.state === SlotState.LEASED);
  }

  /** ACKed (or dead-lettered, or settled on send): done for good. */
  settle(slot: Slot): void {
    if (slot.state === SlotState.SETTLED) return;
    if (slot.state === SlotState.LEASED) this.endLease(slot);
    slot.state = SlotState.SETTLED;
    slot.envelope = undefined;
    slot.member = undefined;
    this.unhold(slot);
    this.version++;
    if (slot.key !== undefined && this.keyHolders.get(slot.key) === slot) this.releaseKey(slot.key);
    if (slot.scheduled) this.settleScheduled(slot);
    this.advance();
  }

  /** Scheduled messages not due yet. */
  get scheduled(): number {
    return this.schedule.size;
  }

  /** Messages not settled below the cursor: scheduled ones that fell due after the cursor passed them. */
  get unsettledBehind(): number {
    return this.schedule.promoted === 0 ? 0 : this.schedule.dueBelow(this.cursor);
  }

  /** Whether a scheduled message is due at `wallNow` and may be promoted ({@link dueOffsets}). */
  hasDue(wallNow: number): boolean {
    return this.schedule.hasDue(wallNow);
  }

  /** Up to `max` scheduled offsets due at `wallNow`, lowest first: read each and hand it to {@link admitDue}. */
  dueOffsets(wallNow: number, max: number): number[] {
    return this.schedule.takeDue(wallNow, max);
  }

  /**
   * A due scheduled message read again from the log becomes available (an Error: it is settled, as a corrupt entry
   * is when read). Ignored when a seek forgot it meanwhile, settled unseen when its cancellation is committed, held
   * back while one is being committed; returns whether it was taken.
   */
  admitDue(offset: number, envelope: DecodedEnvelope | Error, bytes: number): boolean {
    const dueAt = envelope instanceof Error ? 0 : (envelope.dueAt ?? 0);
    if (!this.schedule.promoting(offset, dueAt, () => this.version++)) return false;
    const slot = newSlot(offset, envelope instanceof Error ? EMPTY_ENVELOPE : envelope, bytes, 0, 0);
    slot.scheduled = true;
    this.slots.set(offset, slot);
    this.hold(slot);
    if (envelope instanceof Error) {
      this.settle(slot);
    } else if (slot.key === undefined || !this.keyHolders.has(slot.key)) {
      if (slot.key !== undefined) this.keyHolders.set(slot.key, slot);
      this.ready.push(slot);
    } else {
      this.waitForKey(slot);
    }
    return true;
  }

  /** A promoted scheduled message is settled: below the cursor, nothing else would forget it. */
  private settleScheduled(slot: Slot): void {
    this.schedule.settled(slot.offset);
    if (slot.offset < this.cursor) this.slots.delete(slot.offset);
  }

  /**
   * A leased message comes back unsettled. Returns a verdict when it must be dead-lettered instead (the slot is
   * then DEAD_LETTERING until {@link settle}); otherwise it is available again (after `delayMs`), keeping its key.
   */
  release(slot: Slot, how: Unsettled, now: number): DeadLetterVerdict | undefined {
    if (slot.state !== SlotState.LEASED) return undefined;
    this.endLease(slot);
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
    this.watchDeadline(slot);
    return true;
  }

  /**
   * Puts a lease's deadline in the expiry heap. An entry outlives its lease (settled, released or extended, it is
   * skipped when due), so at a high rate the heap would hold every lease of the last ack timeout (150,000 at 5,000
   * msg/s and 30 s) and the slots they name: once they outnumber the live leases, the stale ones are dropped.
   */
  private watchDeadline(slot: Slot): void {
    this.expiries.push({ deadline: slot.deadline, slot, deliveries: slot.deliveries });
    if (this.expiries.size > 2 * this.leasedCount + EXPIRIES_KEPT_STALE) this.expiries.retain(isLive);
  }

  /**
   * A leased message is to be dead-lettered now (the consumer said retrying cannot help, or refused it as too large):
   * settle it after. `counted` false: the delivery never reached a handler and is taken back.
   */
  terminate(slot: Slot, outcome: string, counted = true): boolean {
    if (slot.state !== SlotState.LEASED) return false;
    this.endLease(slot);
    if (!counted) {
      slot.deliveries--;
      this.version++;
    }
    recordAttempt(slot, outcome);
    slot.member = undefined;
    slot.state = SlotState.DEAD_LETTERING;
    return true;
  }

  /**
   * For a backlog limit: settles every message below `offset` that nobody holds (available or delayed, read or
   * not), as if ACKed; leased messages and those being dead-lettered stay. Offsets not read yet are skipped without
   * reading them: the cursor jumps when nothing read holds it, else they are recorded as settled ranges (as a
   * restored snapshot's) and settled as they are read. Read messages are looked at from `from` (default: the
   * cursor): a caller that dropped before and saw nothing released since need not look at the same ones again.
   * Returns how many messages were dropped.
   */
  dropBefore(offset: number, from = this.cursor): number {
    let dropped = 0;
    for (const slot of this.unheldBefore(offset, Infinity, from)) {
      if (this.isReady(slot)) this.staleReady++;
      this.settle(slot);
      dropped++;
    }
    if (offset <= this.readEnd) return dropped;
    const unread = offset - this.readEnd - this.restoredSettledWithin(this.readEnd, offset);
    if (this.cursor === this.readEnd) {
      this.cursor = this.readEnd = offset;
    } else if (unread > 0) {
      this.restoredSettled.push([this.readEnd, offset]);
      this.restoredSettled.sort((a, b) => a[0] - b[0]);
      this.restoredSettled.splice(0, this.restoredSettled.length, ...mergeRanges(this.restoredSettled));
    } else {
      return dropped;
    }
    for (const restored of this.restoredCounts.keys()) if (restored < offset) this.restoredCounts.delete(restored);
    this.version++;
    return dropped + unread;
  }

  /**
   * For a backlog limit that dead-letters: up to `max` messages below `offset` that nobody holds and that were read,
   * lowest first, become DEAD_LETTERING (settle each once its dead letter is durable). Unread ones must be read first.
   * Looks from `from` on, as {@link dropBefore}.
   */
  deadLetterBefore(offset: number, max: number, from = this.cursor): Slot[] {
    const slots = this.unheldBefore(offset, max, from);
    for (const slot of slots) {
      if (this.isReady(slot)) this.staleReady++;
      slot.state = SlotState.DEAD_LETTERING;
    }
    return slots;
  }

  /** Every offset handed out lies below it (or below the restored mark). */
  get handedOut(): number {
    return this.handedOutEnd;
  }

  /**
   * Nothing more will be handed out (the subscription stops): the mark drops to what was, so the state written last
   * counts no message that was only reserved.
   */
  trimMark(): void {
    const mark = Math.max(this.handedOutEnd, this.cursor);
    if (mark >= this.deliveredMark) return;
    this.deliveredMark = mark;
    this.version++;
  }

  /** Records that offsets below `mark` may be handed out (see SubscriptionSnapshot.deliveredMark); false: it did already. */
  reserveMark(mark: number): boolean {
    if (mark <= this.deliveredMark) return false;
    this.deliveredMark = mark;
    this.version++;
    return true;
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
      if (isLive(top)) due.add(slot);
    }
    return [...due];
  }

  /**
   * The next moment something is due (a lease ends, a delay is over, a scheduled message's time comes), on the
   * monotonic clock `now` reads (scheduled times are on the wall clock, `wallNow`).
   */
  nextDue(now = 0, wallNow = 0): number | undefined {
    const scheduled = this.schedule.nextDue(wallNow);
    const times = [this.expiries.peek()?.deadline, this.delayed.peek()?.availableAt, scheduled && now + scheduled - wallNow].filter(
      (t) => t !== undefined,
    );
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

  /**
   * What must survive a restart (see SubscriptionSnapshot); `alsoSettled` offsets (leased ones a transaction settles
   * in the same journal record) are written as settled without being settled here yet.
   */
  snapshot(alsoSettled?: ReadonlySet<number>): SubscriptionSnapshot {
    // Scheduled messages the cursor passed keep the cursor on disk at the lowest of them: what lies between is settled.
    const cursor = Math.min(this.cursor, this.schedule.held.first() ?? Infinity);
    const settled = cursor < this.cursor ? this.schedule.held.gapsBelow(cursor, this.cursor) : [];
    // Its ranges are cached: the last one, which the loop may extend, is copied.
    if (settled.length > 0) settled[settled.length - 1] = [...settled[settled.length - 1]];
    const counts: SubscriptionSnapshot['counts'] = [];
    if (this.schedule.promoted > 0) {
      // Promoted messages the cursor passed: counted, or settled by the record this state goes in (a dead letter, a
      // transaction), like those above the cursor.
      const below: number[] = [];
      for (const slot of this.slots.values()) {
        if (slot.offset < 0 || slot.offset >= this.cursor) continue;
        if (alsoSettled?.has(slot.offset)) below.push(slot.offset);
        else this.countOf(slot, counts);
      }
      if (below.length > 0)
        settled.splice(
          0,
          settled.length,
          ...mergeRanges([...settled, ...below.map((o): [number, number] => [o, o + 1])].sort((a, b) => a[0] - b[0])),
        );
    }
    for (let offset = this.cursor; offset < this.readEnd; offset++) {
      const slot = this.slots.get(offset)!;
      // Waiting, unless cancelled meanwhile.
      if (slot === SCHEDULED && this.schedule.held.has(offset)) continue;
      if (slot.state === SlotState.SETTLED || alsoSettled?.has(offset)) {
        const last = settled[settled.length - 1];
        if (last && last[1] === offset) last[1]++;
        else settled.push([offset, offset + 1]);
      } else {
        this.countOf(slot, counts);
      }
    }
    for (const [first, end] of this.restoredSettled) if (end > this.readEnd) settled.push([Math.max(first, this.readEnd), end]);
    for (const [offset, count] of this.restoredCounts) counts.push({ offset, ...count });
    return { cursor, settled, counts, deliveredMark: Math.max(this.deliveredMark, this.cursor) };
  }

  /** The count an unsettled slot's state must keep, if any. */
  private countOf(slot: Slot, counts: SubscriptionSnapshot['counts']): void {
    if (slot.state === SlotState.SETTLED) return;
    // A 0 below the mark: handed out, then given back without counting (never sent), so not a delivery.
    if (slot.deliveries > 1 || slot.nacks > 0 || (slot.deliveries === 0 && slot.offset < this.handedOutEnd)) {
      counts.push({ offset: slot.offset, deliveries: slot.deliveries, nacks: slot.nacks });
    }
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

  private hold(slot: Slot): void {
    slot.held = slot.bytes;
    this.heldTotal += slot.held;
    this.windowBytes?.add(slot.held);
  }

  private unhold(slot: Slot): void {
    if (slot.held === 0) return;
    this.heldTotal -= slot.held;
    this.windowBytes?.add(-slot.held);
    slot.held = 0;
  }

  /** A LEASED slot's lease ends (its caller sets its next state). */
  private endLease(slot: Slot): void {
    this.leasedCount--;
    this.watcher?.ended(slot);
  }

  private wasSettled(offset: number): boolean {
    while (this.restoredSettled.length > 0 && this.restoredSettled[0][1] <= offset) this.restoredSettled.shift();
    return this.restoredSettled.length > 0 && this.restoredSettled[0][0] <= offset;
  }

  /** Read messages from `from` up to `offset`, lowest first, that are available or delayed: up to `max`. */
  private unheldBefore(offset: number, max: number, from: number): Slot[] {
    const found: Slot[] = [];
    const end = Math.min(offset, this.readEnd);
    for (let at = Math.max(from, this.cursor); at < end && found.length < max; at++) {
      const slot = this.slots.get(at);
      if (slot?.state === SlotState.AVAILABLE || slot?.state === SlotState.DELAYED) found.push(slot);
    }
    return found;
  }

  /** In the ready heap: available, and not waiting for its ordering key. */
  private isReady(slot: Slot): boolean {
    return slot.state === SlotState.AVAILABLE && (slot.key === undefined || this.keyHolders.get(slot.key) === slot);
  }

  /** Offsets in [first, end) covered by the restored settled ranges. */
  private restoredSettledWithin(first: number, end: number): number {
    let covered = 0;
    for (const [from, to] of this.restoredSettled) covered += Math.max(0, Math.min(to, end) - Math.max(from, first));
    return covered;
  }

  private waitForKey(slot: Slot): void {
    const waiting = this.keyWaiting.get(slot.key!);
    if (!waiting) return void this.keyWaiting.set(slot.key!, [slot]);
    // In offset order: read messages come last, a scheduled one falling due may belong before some of them.
    let at = waiting.length;
    while (at > 0 && waiting[at - 1].offset > slot.offset) at--;
    waiting.splice(at, 0, slot);
  }

  /** The key's holder is settled: the next message of the key, in offset order, holds it and is available. */
  private releaseKey(key: string): void {
    const waiting = this.keyWaiting.get(key);
    // Skips those given up while they waited (a backlog limit): they must not hold the key.
    let next = waiting?.shift();
    while (next && next.state !== SlotState.AVAILABLE) next = waiting?.shift();
    if (waiting?.length === 0) this.keyWaiting.delete(key);
    if (next) {
      this.keyHolders.set(key, next);
      this.ready.push(next);
    } else {
      this.keyHolders.delete(key);
    }
  }

  private advance(): void {
    for (let slot = this.slots.get(this.cursor); slot?.state === SlotState.SETTLED; slot = this.slots.get(this.cursor)) {
      this.slots.delete(this.cursor++);
    }
  }
}

/** Sorted ranges with overlapping or adjacent ones joined. */
function mergeRanges(sorted: ReadonlyArray<[number, number]>): Array<[number, number]> {
  const merged: Array<[number, number]> = [];
  for (const [first, end] of sorted) {
    const last = merged[merged.length - 1];
    if (last && first <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([first, end]);
  }
  return merged;
}

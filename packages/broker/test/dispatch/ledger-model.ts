import type { RedeliveryLimits } from '../../src/dispatch/ledger/delivery-ledger';
import type { SubscriptionSnapshot } from '../../src/storage/subscription-snapshot';
import type { Entry } from './ledger-fixture';

export type ModelState = 'AVAILABLE' | 'LEASED' | 'DELAYED' | 'DEAD_LETTERING' | 'SETTLED';

export interface ModelSlot {
  state: ModelState;
  deliveries: number;
  nacks: number;
  member?: string;
  deadline: number;
  availableAt: number;
}

/**
 * What the delivery ledger should do, written the slow and obvious way: a list of every offset's state, scanned from
 * the cursor. The property test runs it next to the ledger and compares them after every operation.
 */
export class LedgerModel {
  /** Every entry of the log, read or not. */
  readonly log: Entry[] = [];
  /** Every offset ever admitted (and kept across restarts: what a restart restores). */
  readonly slots = new Map<number, ModelSlot>();
  cursor = 0;
  readEnd = 0;
  mark = 0;
  restoredMark = 0;
  /** Every offset ever taken lies below it (or below the restored mark). */
  handedOut = 0;
  /** What the last take set aside as expired (DEAD_LETTERING), in the order it met them. */
  lastExpired: number[] = [];

  constructor(
    private readonly limits: RedeliveryLimits,
    /** Offset order whatever the priorities. */
    private readonly strictOrder = false,
  ) {}

  admit(): Entry {
    const offset = this.readEnd++;
    if (offset === this.log.length) throw new Error('admit past the log');
    const entry = this.log[offset];
    const known = this.slots.get(offset);
    if (entry.corrupt) this.slots.set(offset, { ...this.fresh(0), state: 'SETTLED' });
    else if (!known) this.slots.set(offset, this.fresh(offset < this.restoredMark ? 1 : 0));
    this.advance();
    return entry;
  }

  /**
   * The offsets a take would lease, leased: highest priority first (unless strictly ordered), then lowest offset; a
   * message with an ordering key only while it is the oldest unsettled one of its key. One whose `expiresAt` is not
   * after `now` (the wall clock here) is set aside instead, DEAD_LETTERING, into {@link lastExpired}.
   */
  take(member: string, max: number, now: number, leaseMs: number): number[] {
    this.lastExpired = [];
    const window = Array.from({ length: this.readEnd - this.cursor }, (_, i) => this.cursor + i);
    for (const offset of window) {
      const slot = this.slots.get(offset)!;
      if (slot.state === 'DELAYED' && slot.availableAt <= now) slot.state = 'AVAILABLE';
    }
    const priority = (offset: number) => (this.strictOrder ? 0 : (this.log[offset].priority ?? 4));
    const order = window.sort((a, b) => priority(b) - priority(a) || a - b);
    const taken: number[] = [];
    for (const offset of order) {
      if (taken.length === max) break;
      const slot = this.slots.get(offset)!;
      if (slot.state !== 'AVAILABLE') continue;
      const key = this.log[offset].key;
      if (key !== undefined && this.oldestOfKey(key) !== offset) continue;
      if ((this.log[offset].expiresAt ?? Infinity) <= now) {
        slot.state = 'DEAD_LETTERING';
        this.lastExpired.push(offset);
        continue;
      }
      Object.assign(slot, { state: 'LEASED', member, deadline: now + leaseMs, deliveries: slot.deliveries + 1 });
      this.handedOut = Math.max(this.handedOut, offset + 1);
      taken.push(offset);
    }
    return taken;
  }

  /** The oldest offset read and not settled with this ordering key: the only one of the key that may be leased. */
  private oldestOfKey(key: string): number | undefined {
    for (let offset = this.cursor; offset < this.readEnd; offset++) {
      if (this.log[offset].key === key && this.slots.get(offset)!.state !== 'SETTLED') return offset;
    }
    return undefined;
  }

  /** Unsettled: the verdict's reason when it is to be dead-lettered. */
  release(offset: number, counted: boolean, nack: boolean, delayMs: number, now: number): string | undefined {
    const slot = this.leased(offset);
    if (!counted) slot.deliveries--;
    Object.assign(slot, { member: undefined, deadline: Infinity });
    let reason: string | undefined;
    if (nack && ++slot.nacks > this.limits.maxNackRetries) reason = 'NACK';
    else if (counted && this.limits.maxDeliveries >= 0 && slot.deliveries >= this.limits.maxDeliveries) reason = 'MAX_DELIVERIES';
    if (reason) slot.state = 'DEAD_LETTERING';
    else if (delayMs > 0) Object.assign(slot, { state: 'DELAYED', availableAt: now + delayMs });
    else slot.state = 'AVAILABLE';
    return reason;
  }

  terminate(offset: number): void {
    Object.assign(this.leased(offset), { state: 'DEAD_LETTERING', member: undefined });
  }

  settle(offset: number): void {
    const slot = this.slots.get(offset)!;
    Object.assign(slot, { state: 'SETTLED', member: undefined });
    this.advance();
  }

  extend(offset: number, now: number, leaseMs: number): void {
    const slot = this.leased(offset);
    if (Number.isFinite(slot.deadline)) slot.deadline = now + leaseMs;
  }

  offsetsIn(state: ModelState): number[] {
    const found: number[] = [];
    for (let offset = this.cursor; offset < this.readEnd; offset++) if (this.slots.get(offset)!.state === state) found.push(offset);
    return found;
  }

  expiredAt(now: number): number[] {
    return this.offsetsIn('LEASED').filter((offset) => this.slots.get(offset)!.deadline <= now);
  }

  /** When leases end and delays not over at `now` will be (a push lease never ends here). */
  dueTimes(now: number): number[] {
    const leases = this.offsetsIn('LEASED').map((offset) => this.slots.get(offset)!.deadline);
    const delays = this.offsetsIn('DELAYED')
      .map((offset) => this.slots.get(offset)!.availableAt)
      .filter((at) => at > now);
    return [...leases, ...delays].filter(Number.isFinite);
  }

  /** The snapshot the ledger should write now. */
  snapshot(): { cursor: number; settled: number[]; counts: SubscriptionSnapshot['counts']; deliveredMark: number } {
    const settled: number[] = [];
    const counts: SubscriptionSnapshot['counts'] = [];
    for (const [offset, slot] of [...this.slots].sort(([a], [b]) => a - b)) {
      if (offset < this.cursor) continue;
      if (slot.state === 'SETTLED') settled.push(offset);
      else if (this.counted(offset, slot)) counts.push({ offset, deliveries: slot.deliveries, nacks: slot.nacks });
    }
    return { cursor: this.cursor, settled, counts, deliveredMark: Math.max(this.mark, this.cursor) };
  }

  /**
   * A restart from the snapshot: leases and delays are gone, counts of more than one delivery or a NACK survive, and
   * so does a 0 of one taken and given back uncounted; every other unsettled offset below the mark counts as delivered
   * once.
   */
  restart(): void {
    const mark = Math.max(this.mark, this.cursor);
    for (const [offset, slot] of this.slots) {
      if (offset < this.cursor || slot.state === 'SETTLED') continue;
      const deliveries = this.counted(offset, slot) ? slot.deliveries : offset < mark ? 1 : 0;
      Object.assign(slot, { state: 'AVAILABLE', member: undefined, deadline: Infinity, deliveries });
    }
    this.readEnd = this.cursor;
    this.mark = this.restoredMark = this.handedOut = mark;
  }

  /** Whether the snapshot keeps the slot's count. */
  private counted(offset: number, slot: ModelSlot): boolean {
    return slot.deliveries > 1 || slot.nacks > 0 || (slot.deliveries === 0 && offset < this.handedOut);
  }

  private leased(offset: number): ModelSlot {
    const slot = this.slots.get(offset)!;
    if (slot.state !== 'LEASED') throw new Error(`model: offset ${offset} is ${slot.state}, not LEASED`);
    return slot;
  }

  private fresh(deliveries: number): ModelSlot {
    return { state: 'AVAILABLE', deliveries, nacks: 0, deadline: Infinity, availableAt: 0 };
  }

  private advance(): void {
    while (this.cursor < this.readEnd && this.slots.get(this.cursor)!.state === 'SETTLED') this.cursor++;
  }
}

import fc from 'fast-check';
import { DeliveryLedger, RedeliveryLimits } from '../../src/dispatch/ledger/delivery-ledger';
import { Slot } from '../../src/dispatch/ledger/slot';
import { cursorOnly, decodeSnapshot, encodeSnapshot, SubscriptionSnapshot } from '../../src/storage/subscription-snapshot';
import { admitAll, offsets } from './ledger-fixture';
import { LedgerModel, ModelState } from './ledger-model';

const MEMBERS = ['m0', 'm1', 'm2'];

type Op =
  | { kind: 'admit'; key?: string; corrupt: boolean; priority?: number; expiresAt?: number }
  | { kind: 'take'; member: number; max: number; leaseMs: number; reserve: number }
  | { kind: 'ack' | 'terminate' | 'settleDead'; pick: number }
  | { kind: 'nack'; pick: number; delayMs: number }
  | { kind: 'release'; pick: number; counted: boolean }
  | { kind: 'extend'; pick: number; leaseMs: number }
  | { kind: 'tick'; ms: number }
  | { kind: 'restart'; readmit: number };

/** Which leased (or dead-lettering) offset an operation applies to: its index, modulo how many there are. */
const pick = fc.nat({ max: 20 });
const admit = fc.record({
  kind: fc.constant('admit' as const),
  key: fc.constantFrom(undefined, 'a', 'b'),
  corrupt: fc.nat({ max: 9 }).map((n) => n === 0),
  priority: fc.constantFrom(undefined, 0, 4, 9),
  // On the run's clock, which serves as the wall clock too.
  expiresAt: fc.constantFrom(undefined, undefined, 5, 20, 40),
});
const take = fc.record({
  kind: fc.constant('take' as const),
  member: fc.nat({ max: MEMBERS.length - 1 }),
  max: fc.integer({ min: 1, max: 3 }),
  leaseMs: fc.constantFrom(10, 20, Infinity),
  reserve: fc.constantFrom(0, 2),
});
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: admit },
  { weight: 4, arbitrary: take },
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('ack' as const, 'terminate' as const, 'settleDead' as const), pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('nack' as const), pick, delayMs: fc.constantFrom(0, 5, 15) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('release' as const), pick, counted: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('extend' as const), pick, leaseMs: fc.constantFrom(0, 10, 20) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.nat({ max: 15 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), readmit: fc.nat({ max: 30 }) }) },
);
const limits: fc.Arbitrary<RedeliveryLimits> = fc.record({
  maxDeliveries: fc.constantFrom(-1, 1, 2, 3, 5),
  maxNackRetries: fc.constantFrom(0, 1, 2),
});

/** The offsets a snapshot says are settled, one by one. */
function settledOffsets(snapshot: SubscriptionSnapshot): number[] {
  const all = snapshot.settled.flatMap(([first, end]) => Array.from({ length: end - first }, (_, i) => first + i));
  return all.sort((a, b) => a - b);
}

class Run {
  ledger: DeliveryLedger;
  readonly model: LedgerModel;
  /** The ledger's slots by offset, as handed out (a restart makes new ones). */
  readonly handles = new Map<number, Slot>();
  now = 0;

  constructor(
    private readonly limits: RedeliveryLimits,
    private readonly strictOrder: boolean,
  ) {
    this.ledger = new DeliveryLedger(cursorOnly(0), limits, strictOrder);
    this.model = new LedgerModel(limits, strictOrder);
  }

  apply(step: Op): void {
    const { ledger, model } = this;
    const chosen = (state: ModelState, index: number) => {
      const candidates = model.offsetsIn(state);
      return candidates.length === 0 ? undefined : candidates[index % candidates.length];
    };
    switch (step.kind) {
      case 'admit': {
        if (model.readEnd === model.log.length)
          model.log.push({ key: step.key, corrupt: step.corrupt, priority: step.priority, expiresAt: step.expiresAt });
        admitAll(ledger, [model.admit()]);
        return;
      }
      case 'take': {
        const before = new Set(model.offsetsIn('LEASED'));
        const member = MEMBERS[step.member];
        const expected = model.take(member, step.max, this.now, step.leaseMs);
        const slots = ledger.take(member, step.max, Infinity, this.now, step.leaseMs, this.now);
        const expired = ledger.expiredMessages();
        expect(offsets(expired)).toEqual(model.lastExpired);
        for (const slot of expired) this.handles.set(slot.offset, slot);
        expect(offsets(slots)).toEqual(expected);
        expect(offsets(slots).filter((offset) => before.has(offset))).toEqual([]);
        expect(slots.map((slot) => slot.deliveries)).toEqual(expected.map((offset) => model.slots.get(offset)!.deliveries));
        for (const slot of slots) this.handles.set(slot.offset, slot);
        if (slots.length > 0) {
          // As the subscription does: offsets handed out lie below the mark before they are sent.
          const mark = Math.max(...expected) + 1 + step.reserve;
          ledger.reserveMark(mark);
          model.mark = Math.max(model.mark, mark);
        }
        return;
      }
      case 'tick': {
        this.now += step.ms;
        const due = offsets(ledger.expired(this.now));
        expect(new Set(due).size).toBe(due.length);
        expect([...due].sort((a, b) => a - b)).toEqual(model.expiredAt(this.now));
        for (const offset of due) this.release(offset, { outcome: 'LEASE_EXPIRED', counted: true }, 0);
        ledger.promote(this.now);
        return;
      }
      case 'restart':
        return this.restart(step.readmit);
      case 'settleDead': {
        const offset = chosen('DEAD_LETTERING', step.pick);
        if (offset === undefined) return;
        ledger.settle(this.handles.get(offset)!);
        model.settle(offset);
        return;
      }
    }
    const offset = chosen('LEASED', step.pick);
    if (offset === undefined) return;
    const slot = ledger.leaseAt(offset)!;
    expect(slot).toBe(this.handles.get(offset));
    switch (step.kind) {
      case 'ack':
        ledger.settle(slot);
        return model.settle(offset);
      case 'terminate':
        expect(ledger.terminate(slot, 'TERMINATED')).toBe(true);
        return model.terminate(offset);
      case 'extend':
        expect(ledger.extend(slot, this.now, step.leaseMs)).toBe(true);
        return model.extend(offset, this.now, step.leaseMs);
      case 'nack':
        return this.release(offset, { outcome: 'NACK', counted: true, nack: {}, delayMs: step.delayMs }, step.delayMs);
      case 'release':
        return this.release(offset, { outcome: step.counted ? 'HTTP 500' : 'connection refused', counted: step.counted }, 0);
    }
  }

  /** The invariants that hold after every operation. */
  check(): void {
    const { ledger, model } = this;
    expect([ledger.cursor, ledger.readEnd]).toEqual([model.cursor, model.readEnd]);
    const leases = MEMBERS.flatMap((member) => ledger.leasesOf(member));
    expect(ledger.leased).toBe(model.offsetsIn('LEASED').length);
    expect(leases.length).toBe(ledger.leased);
    const keys = leases.map((slot) => slot.key).filter((key) => key !== undefined);
    expect(new Set(keys).size).toBe(keys.length);
    for (let offset = 0; offset < ledger.cursor; offset++) {
      const slot = model.slots.get(offset);
      if (slot) expect([offset, slot.state]).toEqual([offset, 'SETTLED']);
    }
    // Stale heap entries may make it early, never late, and a push lease is never due.
    const due = model.dueTimes(this.now);
    if (due.length > 0) expect(ledger.nextDue()).toBeLessThanOrEqual(Math.min(...due));
    expect(Number.isFinite(ledger.nextDue() ?? 0)).toBe(true);
    const snapshot = ledger.snapshot();
    const expected = model.snapshot();
    expect({ ...snapshot, settled: settledOffsets(snapshot), counts: [...snapshot.counts].sort((a, b) => a.offset - b.offset) }).toEqual(
      expected,
    );
  }

  /** A crash: a new ledger from the snapshot (through its bytes) reads `readmit` of the log's entries again (all: Infinity). */
  restart(readmit: number): void {
    const bytes = encodeSnapshot(this.ledger.snapshot());
    const snapshot = decodeSnapshot(bytes);
    if (typeof snapshot === 'string') throw new Error(snapshot);
    const readable = this.model.log.length - this.model.cursor;
    this.ledger = new DeliveryLedger(snapshot, this.limits, this.strictOrder);
    this.model.restart();
    this.handles.clear();
    const count = Number.isFinite(readmit) ? readmit % (readable + 1) : readable;
    for (let i = 0; i < count; i++) admitAll(this.ledger, [this.model.admit()]);
  }

  private release(offset: number, how: Parameters<DeliveryLedger['release']>[1], delayMs: number): void {
    const verdict = this.ledger.release(this.handles.get(offset)!, how, this.now);
    expect(verdict?.reason).toBe(this.model.release(offset, how.counted, how.nack !== undefined, delayMs, this.now));
  }

  /**
   * After a final restart that reads everything again, takes and ACKs all there is: exactly the unsettled offsets
   * come out, each once, and each that was ever delivered comes out redelivered.
   */
  drain(): void {
    const unsettled = new Map([...this.model.slots].filter(([offset, slot]) => offset >= this.model.cursor && slot.state !== 'SETTLED'));
    const delivered = new Set([...unsettled].filter(([, slot]) => slot.deliveries > 0).map(([offset]) => offset));
    this.restart(Infinity);
    expect(this.model.readEnd).toBe(this.model.log.length);
    const out: Slot[] = [];
    for (let round = 0; round <= this.model.log.length; round++) {
      // Wall clock 0: nothing expires while draining (this checks that nothing unsettled is lost).
      const slots = this.ledger.take('drain', 1_000, Infinity, this.now, Infinity, 0);
      if (slots.length === 0) break;
      out.push(...slots);
      for (const slot of slots) this.ledger.settle(slot);
    }
    expect(offsets(out).sort((a, b) => a - b)).toEqual([...unsettled.keys()].sort((a, b) => a - b));
    for (const slot of out) if (delivered.has(slot.offset)) expect([slot.offset, slot.deliveries > 1]).toEqual([slot.offset, true]);
    expect(this.ledger.cursor).toBe(this.model.log.length);
  }
}

describe('the delivery ledger against a reference model', () => {
  it.each([
    ['by priority', false],
    ['strictly ordered', true],
  ])('(%s) agrees with the model on every operation, and a restart keeps every settled and every unsettled offset', (_, strictOrder) => {
    fc.assert(
      fc.property(limits, fc.array(op, { minLength: 20, maxLength: 150, size: 'max' }), (limits, ops) => {
        const run = new Run(limits, strictOrder);
        for (const step of ops) {
          run.apply(step);
          run.check();
        }
        run.drain();
      }),
      { numRuns: 60 },
    );
  });
});

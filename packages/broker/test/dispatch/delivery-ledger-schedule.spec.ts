import { DeliveryLedger } from '../../src/dispatch/ledger/delivery-ledger';
import { DueHeap } from '../../src/dispatch/ledger/due-heap';
import { HeldOffsets } from '../../src/dispatch/ledger/held-offsets';
import { CancellationLookup, HELD_BACK_RECHECK_MS } from '../../src/dispatch/ledger/schedule';
import type { CancellationStatus } from '../../src/publish/topic-cancellations';
import { cursorOnly } from '../../src/storage/subscription-snapshot';
import { envelope, LEASE_MS, offsets, TEST_LIMITS } from './ledger-fixture';

/** The wall clock the entries are read at: scheduled ones are due later. */
const READ_AT = 1_000;
const DUE_AT = 5_000;

/** Admits `dueAts` in order at {@link READ_AT}: a number schedules the message, undefined does not. */
function ledgerWith(dueAts: Array<number | undefined>, ledger = new DeliveryLedger(cursorOnly(0), TEST_LIMITS)): DeliveryLedger {
  for (const dueAt of dueAts) {
    const message = { ...envelope(`m${ledger.readEnd}`), ...(dueAt === undefined ? {} : { dueAt }) };
    ledger.admit(message, 10, undefined, READ_AT);
  }
  return ledger;
}

const takeAll = (ledger: DeliveryLedger) => ledger.take('m1', 100, Infinity, 0, LEASE_MS, READ_AT);

/** Promotes what is due at `wallNow` as the log reader would, reading each entry again. */
function promote(ledger: DeliveryLedger, wallNow: number): number[] {
  const due = ledger.dueOffsets(wallNow, 100);
  for (const offset of due) ledger.admitDue(offset, { ...envelope(`m${offset}`), dueAt: DUE_AT }, 10);
  return due;
}

describe('DeliveryLedger: scheduled messages', () => {
  it('moves the cursor past a message not due yet, while the state it writes keeps that message unsettled', () => {
    const ledger = ledgerWith([undefined, DUE_AT, undefined]);
    const taken = takeAll(ledger);
    expect(offsets(taken)).toEqual([0, 2]);
    for (const slot of taken) ledger.settle(slot);
    expect(ledger.cursor).toBe(3);
    expect(ledger.scheduled).toBe(1);
    expect(ledger.snapshot()).toMatchObject({ cursor: 1, settled: [[2, 3]], counts: [] });
  });

  it('hands a scheduled message out only once due, and forgets it once settled', () => {
    const ledger = ledgerWith([DUE_AT, undefined]);
    expect(ledger.hasDue(DUE_AT - 1)).toBe(false);
    expect(ledger.nextDue(100, READ_AT)).toBe(100 + DUE_AT - READ_AT);
    expect(promote(ledger, DUE_AT - 1)).toEqual([]);
    expect(ledger.hasDue(DUE_AT)).toBe(true);
    expect(promote(ledger, DUE_AT)).toEqual([0]);
    const taken = takeAll(ledger);
    expect(offsets(taken)).toEqual([0, 1]);
    expect(taken[0].deliveries).toBe(1);
    for (const slot of taken) ledger.settle(slot);
    expect(ledger.scheduled).toBe(0);
    expect(ledger.snapshot()).toEqual({ cursor: 2, settled: [], counts: [], deliveredMark: 2 });
  });

  it('writes a promoted message the cursor passed as settled by the record that settles it (a dead letter, a transaction)', () => {
    const ledger = ledgerWith([DUE_AT, undefined]);
    for (const slot of takeAll(ledger)) ledger.settle(slot);
    promote(ledger, DUE_AT);
    const [due] = takeAll(ledger);
    expect(due.offset).toBe(0);
    expect(ledger.snapshot()).toMatchObject({ cursor: 0, settled: [[1, 2]] });
    expect(ledger.snapshot(new Set([0]))).toMatchObject({ cursor: 0, settled: [[0, 2]] });
  });

  it('rebuilds its schedule from the log after a restart: not-yet-due messages wait again, never counted as delivered', () => {
    const before = ledgerWith([DUE_AT, undefined, DUE_AT + 1, undefined]);
    for (const slot of takeAll(before)) before.settle(slot);
    before.reserveMark(4);
    const snapshot = before.snapshot();
    expect(snapshot).toMatchObject({
      cursor: 0,
      settled: [
        [1, 2],
        [3, 4],
      ],
    });

    const after = ledgerWith([DUE_AT, undefined, DUE_AT + 1, undefined], new DeliveryLedger(snapshot, TEST_LIMITS));
    expect(takeAll(after)).toEqual([]);
    expect(after.scheduled).toBe(2);
    expect(promote(after, DUE_AT + 1)).toEqual([0, 2]);
    const taken = takeAll(after);
    expect(taken.map((slot) => [slot.offset, slot.deliveries])).toEqual([
      [0, 1],
      [2, 1],
    ]);
  });

  it('forgets its schedule on a seek and reads it again from the new cursor', () => {
    const ledger = ledgerWith([DUE_AT, DUE_AT]);
    const due = ledger.dueOffsets(DUE_AT, 100);
    ledger.restart(cursorOnly(0));
    expect(ledger.scheduled).toBe(0);
    // An entry read for the old schedule arrives after the seek: ignored.
    expect(ledger.admitDue(due[0], envelope('m0'), 10)).toBe(false);
    ledgerWith([DUE_AT], ledger);
    expect(ledger.scheduled).toBe(1);
  });

  it('settles a due message whose entry cannot be read any more (deleted by retention)', () => {
    const ledger = ledgerWith([DUE_AT]);
    const [offset] = ledger.dueOffsets(DUE_AT, 1);
    expect(ledger.admitDue(offset, new Error('deleted'), 0)).toBe(true);
    expect(ledger.snapshot()).toEqual({ cursor: 1, settled: [], counts: [], deliveredMark: 1 });
  });
});

describe('DueHeap', () => {
  it('pops offsets by due time, then by offset', () => {
    const heap = new DueHeap();
    const pairs = Array.from({ length: 1000 }, (_, offset) => ({ due: (offset * 7919) % 97, offset }));
    for (const { due, offset } of pairs) heap.push(due, offset);
    const popped: number[] = [];
    while (heap.size > 0) popped.push(heap.pop()!);
    const expected = [...pairs].sort((a, b) => a.due - b.due || a.offset - b.offset).map(({ offset }) => offset);
    expect(popped).toEqual(expected);
  });
});

describe('HeldOffsets', () => {
  it('gives the offsets it does not hold as ranges, through removals and compaction', () => {
    const held = new HeldOffsets();
    for (let offset = 10; offset < 2010; offset += 2) held.append(offset);
    for (let offset = 10; offset < 1810; offset += 2) held.delete(offset);
    for (let offset = 3000; offset < 3100; offset++) held.append(offset);
    expect(held.first()).toBe(1810);
    expect(held.size).toBe(200);
    const gaps = held.gapsBelow(1810, 3050);
    expect(gaps.slice(0, 2)).toEqual([
      [1811, 1812],
      [1813, 1814],
    ]);
    expect(gaps[gaps.length - 1]).toEqual([2009, 3000]);
    expect(held.gapsBelow(1810, 4000).at(-1)).toEqual([3100, 4000]);
    expect(() => held.append(3000)).toThrow('Held offsets must grow');
  });
});

describe('DeliveryLedger: cancelled scheduled messages', () => {
  const cancellation = (offset: number) => ({ ...envelope('cancel'), cancels: offset });

  it('settles a waiting message when it reads its cancellation, never delivering either, also when read again', () => {
    const ledger = ledgerWith([DUE_AT, undefined]);
    ledger.admit(cancellation(0), 10, undefined, READ_AT);
    expect(ledger.scheduled).toBe(0);
    expect(promote(ledger, DUE_AT)).toEqual([]);
    expect(offsets(takeAll(ledger))).toEqual([1]);
    const snapshot = ledger.snapshot();
    expect(snapshot).toMatchObject({ cursor: 1, settled: [[2, 3]] });

    // Read again from the state written (the cursor on disk may be below the cancelled message).
    const again = new DeliveryLedger({ cursor: 0, settled: [], counts: [], deliveredMark: 0 }, TEST_LIMITS);
    ledgerWith([DUE_AT], again);
    again.admit(cancellation(0), 10, undefined, READ_AT);
    expect(again.scheduled).toBe(0);
    expect(again.snapshot()).toMatchObject({ cursor: 2, settled: [] });
  });

  it('cannot cancel a message already due', () => {
    const ledger = ledgerWith([DUE_AT]);
    expect(promote(ledger, DUE_AT)).toEqual([0]);
    ledger.admit(cancellation(0), 10, undefined, DUE_AT);
    expect(offsets(takeAll(ledger))).toEqual([0]);
  });
});

describe('DeliveryLedger: cancellations committed before their records are read', () => {
  /** A topic's cancellations as the ledger asks them, set by each test. */
  const statuses = new Map<number, CancellationStatus>();
  const lookup: CancellationLookup = { statusOf: (offset) => statuses.get(offset) };
  beforeEach(() => statuses.clear());
  const ledger = () => new DeliveryLedger(cursorOnly(0), TEST_LIMITS, false, undefined, lookup);

  it('never hands out a cancelled message: neither when it falls due, nor when it is read once due', () => {
    const waiting = ledgerWith([DUE_AT, undefined], ledger());
    statuses.set(0, 'cancelled');
    const version = waiting.version;
    expect(promote(waiting, DUE_AT)).toEqual([0]);
    expect(offsets(takeAll(waiting))).toEqual([1]);
    expect(waiting.scheduled).toBe(0);
    // Settled in the state it writes next.
    expect(waiting.version).toBeGreaterThan(version);
    expect(waiting.snapshot()).toMatchObject({ cursor: 1, settled: [] });

    const late = ledger();
    late.admit({ ...envelope('m0'), dueAt: DUE_AT }, 10, undefined, DUE_AT + 1);
    late.admit(envelope('m1'), 10, undefined, DUE_AT + 1);
    expect(offsets(late.take('m1', 100, Infinity, 0, LEASE_MS, DUE_AT + 1))).toEqual([1]);
    expect(late.hasDue(DUE_AT + 1)).toBe(false);
  });

  it('holds a due message back while its cancellation is being committed: never handed out if it is, handed out if it fails', () => {
    for (const outcome of ['cancelled', undefined] as const) {
      statuses.set(0, 'pending');
      const held = ledgerWith([DUE_AT], ledger());
      expect(promote(held, DUE_AT)).toEqual([0]);
      expect(takeAll(held)).toEqual([]);
      expect(held.hasDue(DUE_AT)).toBe(false);
      // Looked at again soon: a failed cancellation wakes nothing.
      expect(held.nextDue(100, DUE_AT)).toBe(100 + HELD_BACK_RECHECK_MS);
      expect(held.snapshot()).toMatchObject({ cursor: 0 });

      if (outcome === undefined) statuses.delete(0);
      else statuses.set(0, outcome);
      expect(held.hasDue(DUE_AT)).toBe(true);
      promote(held, DUE_AT);
      expect(offsets(takeAll(held))).toEqual(outcome === undefined ? [0] : []);
      expect(held.scheduled).toBe(0);
    }
  });

  it('holds back a message read once due while its cancellation is being committed', () => {
    statuses.set(0, 'pending');
    const late = ledger();
    late.admit({ ...envelope('m0'), dueAt: DUE_AT }, 10, undefined, DUE_AT + 1);
    expect(promote(late, DUE_AT + 1)).toEqual([0]);
    expect(takeAll(late)).toEqual([]);
    statuses.set(0, 'cancelled');
    expect(promote(late, DUE_AT + 1)).toEqual([0]);
    expect(takeAll(late)).toEqual([]);
    expect(late.snapshot()).toMatchObject({ cursor: 1, settled: [] });
  });
});

describe('DeliveryLedger: a scheduled message with an ordering key', () => {
  it('joins its key in offset order once due: after the holder, before later messages of the key', () => {
    const ledger = new DeliveryLedger(cursorOnly(0), TEST_LIMITS);
    ledger.admit({ ...envelope('m0', 'k'), dueAt: DUE_AT }, 10, undefined, READ_AT);
    ledger.admit(envelope('m1', 'k'), 10, undefined, READ_AT);
    ledger.admit(envelope('m2', 'k'), 10, undefined, READ_AT);
    const [holder] = takeAll(ledger);
    expect(holder.offset).toBe(1);
    for (const offset of ledger.dueOffsets(DUE_AT, 10)) ledger.admitDue(offset, { ...envelope('m0', 'k'), dueAt: DUE_AT }, 10);
    expect(takeAll(ledger)).toEqual([]);
    ledger.settle(holder);
    const [next] = takeAll(ledger);
    expect(next.offset).toBe(0);
    ledger.settle(next);
    expect(offsets(takeAll(ledger))).toEqual([2]);
  });
});

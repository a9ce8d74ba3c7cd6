import { DeliveryLedger } from '../../src/dispatch/ledger/delivery-ledger';
import { SlotState } from '../../src/dispatch/ledger/slot';
import { cursorOnly } from '../../src/storage/subscription-snapshot';
import { admitAll, envelope, HTTP_500, LEASE_MS, ledgerOf, NACK, offsets, takeOne, TEST_LIMITS } from './ledger-fixture';

describe('the delivery ledger drops its oldest messages for a backlog limit (dropBefore)', () => {
  it('settles every unheld message below the offset and moves the cursor past them', () => {
    const ledger = ledgerOf(6);
    expect(ledger.dropBefore(4)).toBe(4);
    expect(ledger.cursor).toBe(4);
    expect(offsets(ledger.take('m1', 10, Infinity, 0, LEASE_MS))).toEqual([4, 5]);
  });

  it('keeps leased messages and those being dead-lettered: the cursor stops at the first one held', () => {
    const ledger = ledgerOf(6);
    const [, leased] = ledger.take('m1', 2, Infinity, 0, LEASE_MS);
    ledger.settle(ledger.leaseAt(0)!);
    const leaving = takeOne(ledger);
    ledger.terminate(leaving, 'TERMINATED');
    expect(ledger.dropBefore(5)).toBe(2);
    expect(ledger.cursor).toBe(1);
    expect(leased.state).toBe(SlotState.LEASED);
    expect(leaving.state).toBe(SlotState.DEAD_LETTERING);
    ledger.settle(leased);
    ledger.settle(leaving);
    expect(ledger.cursor).toBe(5);
  });

  it('drops delayed messages and never hands out a dropped one, even one that waited for its ordering key', () => {
    const ledger = ledgerOf([{ key: 'k' }, { key: 'k' }, {}, {}]);
    const holder = takeOne(ledger);
    ledger.release(holder, { ...NACK, delayMs: 1_000 }, 0);
    expect(offsets(ledger.take('m1', 1, Infinity, 0, LEASE_MS))).toEqual([2]);
    // Offset 1 waits for key k, held by the delayed offset 0.
    expect(ledger.dropBefore(2)).toBe(2);
    expect(ledger.take('m1', 10, Infinity, 5_000, LEASE_MS).map((slot) => slot.offset)).toEqual([3]);
    expect(ledger.available).toBe(0);
  });

  it('counts only what take can hand out as available when dropped messages wait in a priority-ordered heap', () => {
    const ledger = ledgerOf([{ priority: 1 }, { priority: 1 }, { priority: 9 }, { priority: 9 }]);
    // The dropped offsets 0 and 1 sit below the top of the heap (priority 9 first): `available` must not count them.
    expect(ledger.dropBefore(2)).toBe(2);
    expect(ledger.available).toBe(2);
    expect(offsets(ledger.take('m1', 10, Infinity, 0, LEASE_MS))).toEqual([2, 3]);
    expect(ledger.available).toBe(0);
  });

  it('passes an ordering key on past a dropped message that waited for it, so the key is never stuck', () => {
    const ledger = ledgerOf([{ key: 'k' }, { key: 'k' }, { key: 'k' }]);
    const holder = takeOne(ledger);
    // Offset 1 waits for key k; dropping it must not leave it to hold the key once offset 0 settles.
    expect(ledger.dropBefore(2, 1)).toBe(1);
    ledger.settle(holder);
    expect(offsets(ledger.take('m1', 10, Infinity, 0, LEASE_MS))).toEqual([2]);
  });

  it('skips offsets not read yet without reading them when nothing read holds the cursor', () => {
    const ledger = ledgerOf(3);
    expect(ledger.dropBefore(1_000_000)).toBe(1_000_000);
    expect([ledger.cursor, ledger.readEnd]).toEqual([1_000_000, 1_000_000]);
    expect(ledger.snapshot()).toMatchObject({ cursor: 1_000_000, settled: [] });
  });

  it('records unread offsets as settled while a lease holds the cursor, and settles them as they are read', () => {
    const ledger = ledgerOf(3);
    const held = takeOne(ledger);
    expect(ledger.dropBefore(10)).toBe(9);
    expect(ledger.snapshot()).toMatchObject({
      cursor: 0,
      settled: [
        [1, 3],
        [3, 10],
      ],
    });
    const version = ledger.version;
    expect(ledger.dropBefore(10)).toBe(0);
    expect(ledger.version).toBe(version);
    admitAll(
      ledger,
      Array.from({ length: 8 }, () => ({})),
    );
    expect(ledger.available).toBe(1);
    expect(offsets(ledger.take('m1', 10, Infinity, 0, LEASE_MS))).toEqual([10]);
    ledger.settle(held);
    expect(ledger.cursor).toBe(10);
  });

  it('does not count offsets a restored snapshot had settled, and forgets restored counts it passes', () => {
    const snapshot = {
      cursor: 0,
      settled: [[2, 4]] as Array<[number, number]>,
      counts: [{ offset: 5, deliveries: 3, nacks: 1 }],
      deliveredMark: 6,
    };
    const ledger = new DeliveryLedger(snapshot, TEST_LIMITS);
    expect(ledger.dropBefore(8)).toBe(6);
    expect(ledger.snapshot()).toEqual({ cursor: 8, settled: [], counts: [], deliveredMark: 8 });
  });

  it('looks at read messages only from `from` on, so a caller can skip those it saw held before', () => {
    const ledger = ledgerOf(6);
    const held = takeOne(ledger);
    ledger.release(takeOne(ledger), HTTP_500, 0);
    // Offset 1 came back, but the caller says it looked below 3 already: 1 and 2 stay.
    expect(ledger.dropBefore(4, 3)).toBe(1);
    expect(offsets(ledger.take('m1', 10, Infinity, 0, LEASE_MS))).toEqual([1, 2, 4, 5]);
    expect(held.state).toBe(SlotState.LEASED);
    expect(offsets(ledger.deadLetterBefore(6, 10, 5))).toEqual([]);
  });

  it('moves the version, so the state on disk follows, and changes nothing when there is nothing to drop', () => {
    const ledger = ledgerOf(2, cursorOnly(0));
    const before = ledger.version;
    expect(ledger.dropBefore(0)).toBe(0);
    expect(ledger.version).toBe(before);
    ledger.dropBefore(5);
    expect(ledger.version).toBeGreaterThan(before);
  });
});

describe('the delivery ledger dead-letters its oldest messages for a backlog limit (deadLetterBefore)', () => {
  it('marks up to max unheld read messages below the offset as being dead-lettered, lowest first', () => {
    const ledger = ledgerOf(6);
    const leased = takeOne(ledger);
    const slots = ledger.deadLetterBefore(5, 3);
    expect(offsets(slots)).toEqual([1, 2, 3]);
    expect(slots.every((slot) => slot.state === SlotState.DEAD_LETTERING)).toBe(true);
    expect(offsets(ledger.take('m1', 10, Infinity, 0, LEASE_MS))).toEqual([4, 5]);
    for (const slot of [leased, ...slots]) ledger.settle(slot);
    expect(ledger.cursor).toBe(4);
  });

  it('leaves unread offsets alone: they must be read first', () => {
    const ledger = ledgerOf(2);
    expect(offsets(ledger.deadLetterBefore(10, 100))).toEqual([0, 1]);
    expect([ledger.cursor, ledger.readEnd]).toEqual([0, 2]);
  });

  it('keeps the envelope until settled, and a released message can be dead-lettered', () => {
    const ledger = new DeliveryLedger(cursorOnly(0), TEST_LIMITS);
    ledger.admit(envelope('a'), 10);
    ledger.release(takeOne(ledger), HTTP_500, 0);
    const [slot] = ledger.deadLetterBefore(1, 10);
    expect(slot.envelope?.id).toBe('a');
    expect(slot.deliveries).toBe(1);
  });
});

import { HTTP_500, LEASE_MS, ledgerOf, NACK, offsets, takeOne } from './ledger-fixture';

const takeAll = (ledger: ReturnType<typeof ledgerOf>, now = 0, member = 'm1') => offsets(ledger.take(member, 100, Infinity, now, LEASE_MS));

describe('the delivery ledger keeps ordering keys', () => {
  it('never leases two messages of one key at once, and lets other keys and unkeyed ones pass', () => {
    const ledger = ledgerOf([{ key: 'a' }, { key: 'a' }, { key: 'b' }, {}, { key: 'a' }, { key: 'b' }]);
    expect(takeAll(ledger)).toEqual([0, 2, 3]);
    expect(takeAll(ledger, 0, 'm2')).toEqual([]);
    ledger.settle(ledger.leaseAt(2)!);
    expect(takeAll(ledger, 0, 'm2')).toEqual([5]);
  });

  it('keeps the key with a holder that is released, delayed or expired, and gives it back to the holder first', () => {
    const ledger = ledgerOf([{ key: 'a' }, { key: 'a' }]);
    const holder = takeOne(ledger, 0, 'm1', 100);
    ledger.release(holder, HTTP_500, 0);
    expect(takeAll(ledger, 0, 'm2')).toEqual([0]);
    ledger.release(holder, { ...NACK, delayMs: 50 }, 0);
    expect(takeAll(ledger, 10)).toEqual([]);
    expect(takeAll(ledger, 50)).toEqual([0]);
    expect(ledger.expired(50 + LEASE_MS)).toEqual([holder]);
    ledger.release(holder, { outcome: 'LEASE_EXPIRED', counted: true }, 50 + LEASE_MS);
    expect(takeAll(ledger, 50 + LEASE_MS, 'm2')).toEqual([0]);
    expect(holder.deliveries).toBe(4);
  });

  it('settling the holder passes the key to the waiting messages in offset order', () => {
    const ledger = ledgerOf([{ key: 'a' }, { key: 'a' }, { key: 'a' }, { key: 'a' }]);
    expect(takeAll(ledger)).toEqual([0]);
    expect(takeAll(ledger)).toEqual([]);
    for (const next of [1, 2, 3]) {
      ledger.settle(ledger.leaseAt(next - 1)!);
      expect(takeAll(ledger)).toEqual([next]);
    }
  });

  it('dead-lettering the holder releases its key once settled', () => {
    const ledger = ledgerOf([{ key: 'a' }, { key: 'a' }, { key: 'a' }], undefined, { maxDeliveries: 1, maxNackRetries: 0 });
    const holder = takeOne(ledger);
    expect(ledger.release(holder, HTTP_500, 0)?.reason).toBe('MAX_DELIVERIES');
    expect(takeAll(ledger)).toEqual([]);
    ledger.settle(holder);
    expect(takeAll(ledger)).toEqual([1]);
    const next = ledger.leaseAt(1)!;
    ledger.terminate(next, 'TERMINATED');
    expect(takeAll(ledger)).toEqual([]);
    ledger.settle(next);
    expect(takeAll(ledger)).toEqual([2]);
  });
});

describe('the delivery ledger moves its cursor', () => {
  it('moves past settled runs and stops at the first unsettled offset', () => {
    const ledger = ledgerOf(5);
    const slots = ledger.take('m1', 5, Infinity, 0, LEASE_MS);
    ledger.settle(slots[1]);
    ledger.settle(slots[2]);
    expect([ledger.cursor, ledger.windowSize]).toEqual([0, 5]);
    ledger.settle(slots[0]);
    expect([ledger.cursor, ledger.windowSize]).toEqual([3, 2]);
    ledger.settle(slots[4]);
    expect(ledger.cursor).toBe(3);
    ledger.settle(slots[3]);
    expect([ledger.cursor, ledger.windowSize]).toEqual([5, 0]);
  });

  it('settles corrupt entries at admit, moving the cursor past them', () => {
    const ledger = ledgerOf([{ corrupt: true }, {}, { corrupt: true }]);
    expect([ledger.cursor, ledger.readEnd]).toEqual([1, 3]);
    ledger.settle(takeOne(ledger));
    expect(ledger.cursor).toBe(3);
  });

  it('does not move for a message being dead-lettered until it is settled', () => {
    const ledger = ledgerOf(1);
    ledger.terminate(takeOne(ledger), 'REJECTED');
    expect(ledger.cursor).toBe(0);
  });
});

describe('the delivery ledger snapshot', () => {
  it('holds the settled ranges above the cursor, the counts of redelivered or NACKed messages, and the mark', () => {
    const ledger = ledgerOf(8);
    const slots = ledger.take('m1', 8, Infinity, 0, LEASE_MS);
    ledger.reserveMark(108);
    for (const i of [1, 2, 4]) ledger.settle(slots[i]);
    ledger.release(slots[3], NACK, 0);
    ledger.release(slots[5], HTTP_500, 0);
    expect(offsets(ledger.take('m2', 2, Infinity, 0, LEASE_MS))).toEqual([3, 5]);
    ledger.release(slots[6], HTTP_500, 0);
    ledger.release(slots[7], NACK, 0);
    expect(ledger.snapshot()).toEqual({
      cursor: 0,
      settled: [
        [1, 3],
        [4, 5],
      ],
      counts: [
        { offset: 3, deliveries: 2, nacks: 1 },
        { offset: 5, deliveries: 2, nacks: 0 },
        { offset: 7, deliveries: 1, nacks: 1 },
      ],
      deliveredMark: 108,
    });
  });

  it('never reports a delivery mark below the cursor', () => {
    const ledger = ledgerOf(3);
    for (const slot of ledger.take('m1', 3, Infinity, 0, LEASE_MS)) ledger.settle(slot);
    expect(ledger.snapshot()).toEqual({ cursor: 3, settled: [], counts: [], deliveredMark: 3 });
  });

  it('moves its version whenever the durable state changes', () => {
    const ledger = ledgerOf(1);
    const versions = [ledger.version];
    const slot = takeOne(ledger);
    ledger.release(slot, HTTP_500, 0);
    versions.push(ledger.version);
    takeOne(ledger);
    versions.push(ledger.version);
    ledger.settle(slot);
    versions.push(ledger.version);
    expect(new Set(versions).size).toBe(4);
  });
});

describe('a ledger restored from a snapshot', () => {
  const snapshot = {
    cursor: 10,
    settled: [
      [11, 13],
      [15, 16],
    ] as Array<[number, number]>,
    counts: [
      { offset: 13, deliveries: 3, nacks: 1 },
      { offset: 20, deliveries: 4, nacks: 0 },
    ],
    deliveredMark: 15,
  };

  it('never hands out the settled offsets, and moves the cursor past them', () => {
    const ledger = ledgerOf(8, snapshot);
    expect(takeAll(ledger)).toEqual([10, 13, 14, 16, 17]);
    ledger.settle(ledger.leaseAt(10)!);
    expect(ledger.cursor).toBe(13);
  });

  it('gives back the counts, and at least one delivery below the mark so the next one is redelivered', () => {
    const ledger = ledgerOf(11, snapshot);
    const deliveries = Object.fromEntries(ledger.take('m1', 100, Infinity, 0, LEASE_MS).map((s) => [s.offset, [s.deliveries, s.nacks]]));
    expect(deliveries).toEqual({ 10: [2, 0], 13: [4, 1], 14: [2, 0], 16: [1, 0], 17: [1, 0], 18: [1, 0], 19: [1, 0], 20: [5, 0] });
  });

  it('keeps what it has not read yet in its own snapshot', () => {
    const ledger = ledgerOf(2, snapshot);
    expect(ledger.snapshot()).toEqual({
      ...snapshot,
      settled: [
        [11, 12],
        [12, 13],
        [15, 16],
      ],
    });
    expect(ledgerOf(0, snapshot).snapshot()).toEqual(snapshot);
  });

  it('settles a corrupt entry it reads, whatever the snapshot counted for it', () => {
    const ledger = ledgerOf([{}, {}, {}, { corrupt: true }], snapshot);
    expect(ledger.snapshot().counts).toEqual([{ offset: 20, deliveries: 4, nacks: 0 }]);
    expect(takeAll(ledger)).toEqual([10]);
  });
});

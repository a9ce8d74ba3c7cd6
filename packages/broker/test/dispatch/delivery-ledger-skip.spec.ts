import { DeliveryLedger } from '../../src/dispatch/ledger/delivery-ledger';
import { admitAll, envelope, LEASE_MS, ledgerOf, offsets, TEST_LIMITS } from './ledger-fixture';

describe('the delivery ledger skips offsets retention deleted', () => {
  it('moves the cursor and the read position to the new start when nothing is read past the cursor, returning how many it skipped', () => {
    const ledger = ledgerOf(0);
    const version = ledger.version;
    expect(ledger.skipTo(25)).toBe(25);
    expect([ledger.cursor, ledger.readEnd]).toEqual([25, 25]);
    expect(ledger.version).toBeGreaterThan(version);
    admitAll(ledger, [{}]);
    expect(offsets(ledger.take('m1', 5, Infinity, 0, LEASE_MS))).toEqual([25]);
  });

  it('does nothing when the cursor is already at or past the start', () => {
    const ledger = ledgerOf(0, { cursor: 30, settled: [], counts: [], deliveredMark: 30 });
    expect(ledger.skipTo(30)).toBe(0);
    expect(ledger.skipTo(10)).toBe(0);
    expect(ledger.cursor).toBe(30);
  });

  it('waits while messages read past the cursor are unsettled: they are delivered first', () => {
    const ledger = ledgerOf(2);
    const [first, second] = ledger.take('m1', 2, Infinity, 0, LEASE_MS);
    expect(ledger.skipTo(10)).toBe(0);
    expect([ledger.cursor, ledger.readEnd]).toEqual([0, 2]);
    ledger.settle(first);
    ledger.settle(second);
    expect(ledger.skipTo(10)).toBe(8);
    expect(ledger.cursor).toBe(10);
  });

  it('drops restored state below the new start and keeps what lies past it', () => {
    const ledger = new DeliveryLedger(
      {
        cursor: 0,
        settled: [
          [2, 4],
          [12, 14],
        ],
        counts: [
          { offset: 5, deliveries: 3, nacks: 1 },
          { offset: 15, deliveries: 2, nacks: 0 },
        ],
        deliveredMark: 20,
      },
      TEST_LIMITS,
    );
    expect(ledger.skipTo(10)).toBe(10);
    expect(ledger.snapshot()).toEqual({
      cursor: 10,
      settled: [[12, 14]],
      counts: [{ offset: 15, deliveries: 2, nacks: 0 }],
      deliveredMark: 20,
    });
    ledger.admit(envelope('a'), 1);
    ledger.admit(envelope('b'), 1);
    // Offset 12 was settled before: it is not handed out again.
    ledger.admit(envelope('c'), 1);
    expect(offsets(ledger.take('m1', 5, Infinity, 0, LEASE_MS))).toEqual([10, 11]);
  });
});

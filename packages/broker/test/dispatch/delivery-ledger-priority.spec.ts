import { SlotState } from '../../src/dispatch/ledger/slot';
import { cursorOnly } from '../../src/storage/subscription-snapshot';
import { admitAll, LEASE_MS, ledgerOf, NACK, offsets, TEST_LIMITS, takeOne } from './ledger-fixture';

const takeAll = (ledger: ReturnType<typeof ledgerOf>, now = 0) => offsets(ledger.take('m1', 100, Infinity, now, LEASE_MS, 0));

describe('DeliveryLedger priority', () => {
  it('hands out higher priorities first', () => {
    const ledger = ledgerOf([{ priority: 1 }, { priority: 9 }, {}, { priority: 7 }]);
    expect(takeAll(ledger)).toEqual([1, 3, 2, 0]);
  });

  it('keeps offset order (FIFO) within a priority, the default 4 included', () => {
    const ledger = ledgerOf([{ priority: 6 }, {}, { priority: 6 }, { priority: 4 }, { priority: 6 }]);
    expect(takeAll(ledger)).toEqual([0, 2, 4, 1, 3]);
  });

  it('gives a message released after a NACK its place by priority again, ahead of lower priorities', () => {
    const ledger = ledgerOf([{ priority: 8 }, { priority: 2 }, { priority: 2 }]);
    const first = takeOne(ledger);
    expect(first.offset).toBe(0);
    ledger.release(first, NACK, 0);
    expect(takeAll(ledger)).toEqual([0, 1, 2]);
  });

  it('puts a message read later ahead of waiting ones of lower priority', () => {
    const ledger = ledgerOf([{ priority: 1 }, { priority: 1 }]);
    expect(offsets(ledger.take('m1', 1, Infinity, 0, LEASE_MS, 0))).toEqual([0]);
    admitAll(ledger, [{ priority: 5 }]);
    expect(takeAll(ledger)).toEqual([2, 1]);
  });

  it('ignores priority in a strictly ordered ledger: offset order', () => {
    const ledger = ledgerOf([{ priority: 1 }, { priority: 9 }, {}, { priority: 7 }], cursorOnly(0), TEST_LIMITS, true);
    expect(takeAll(ledger)).toEqual([0, 1, 2, 3]);
  });

  it('keeps an ordering key in offset order whatever the priorities, while other messages go by priority', () => {
    const ledger = ledgerOf([{ key: 'k', priority: 1 }, { key: 'k', priority: 9 }, { priority: 5 }, { key: 'k', priority: 3 }]);
    // Only the key's oldest message is available: the priority-9 message of the key waits behind it.
    expect(takeAll(ledger)).toEqual([2, 0]);
    ledger.settle(ledger.leaseAt(0)!);
    expect(takeAll(ledger)).toEqual([1]);
    ledger.settle(ledger.leaseAt(1)!);
    expect(takeAll(ledger)).toEqual([3]);
  });

  it('keeps the key with its holder through a NACK: the next of the key waits', () => {
    const ledger = ledgerOf([{ key: 'k' }, { key: 'k', priority: 9 }]);
    const holder = takeOne(ledger);
    ledger.release(holder, NACK, 0);
    expect(takeAll(ledger)).toEqual([0]);
  });
});

describe('DeliveryLedger expiry', () => {
  it('never leases a message past its expiresAt: a take sets it aside, once', () => {
    const ledger = ledgerOf([{ expiresAt: 100 }, { expiresAt: 101 }, {}]);
    expect(offsets(ledger.take('m1', 10, Infinity, 0, LEASE_MS, 100))).toEqual([1, 2]);
    const expired = ledger.expiredMessages();
    expect(offsets(expired)).toEqual([0]);
    expect(expired[0].state).toBe(SlotState.DEAD_LETTERING);
    expect(expired[0].deliveries).toBe(0);
    expect(ledger.expiredMessages()).toEqual([]);
    ledger.settle(expired[0]);
    expect(ledger.cursor).toBe(1);
    ledger.settle(ledger.leaseAt(1)!);
    ledger.settle(ledger.leaseAt(2)!);
    expect(ledger.cursor).toBe(3);
  });

  it('fills a take past expired messages: up to max live ones', () => {
    const ledger = ledgerOf([{ expiresAt: 1 }, { expiresAt: 1 }, {}, {}]);
    expect(offsets(ledger.take('m1', 2, Infinity, 0, LEASE_MS, 5))).toEqual([2, 3]);
    expect(offsets(ledger.expiredMessages())).toEqual([0, 1]);
  });

  it('lets a leased message that expires finish its delivery, and does not hand it out again once released', () => {
    const ledger = ledgerOf([{ expiresAt: 100 }]);
    const [slot] = ledger.take('m1', 1, Infinity, 0, LEASE_MS, 50);
    expect(ledger.leaseAt(0)).toBe(slot);
    expect(ledger.take('m1', 1, Infinity, 0, LEASE_MS, 200)).toEqual([]);
    expect(ledger.expiredMessages()).toEqual([]);
    ledger.release(slot, NACK, 0);
    expect(ledger.take('m1', 1, Infinity, 0, LEASE_MS, 200)).toEqual([]);
    expect(offsets(ledger.expiredMessages())).toEqual([0]);
  });

  it('expires a message while it is delayed: it is set aside when its delay ends, not delivered', () => {
    const ledger = ledgerOf([{ expiresAt: 100 }]);
    const slot = takeOne(ledger, 0);
    ledger.release(slot, { ...NACK, delayMs: 50 }, 0);
    expect(ledger.take('m1', 1, Infinity, 10, LEASE_MS, 90)).toEqual([]);
    expect(ledger.expiredMessages()).toEqual([]);
    expect(ledger.take('m1', 1, Infinity, 60, LEASE_MS, 100)).toEqual([]);
    expect(offsets(ledger.expiredMessages())).toEqual([0]);
  });

  it('expires a message waiting for its ordering key when the key comes to it, and the key moves on', () => {
    const ledger = ledgerOf([{ key: 'k' }, { key: 'k', expiresAt: 100 }, { key: 'k' }]);
    const holder = takeOne(ledger, 0);
    ledger.settle(holder);
    expect(offsets(ledger.take('m1', 1, Infinity, 0, LEASE_MS, 100))).toEqual([]);
    const [expired] = ledger.expiredMessages();
    expect(expired.offset).toBe(1);
    ledger.settle(expired);
    expect(offsets(ledger.take('m1', 1, Infinity, 0, LEASE_MS, 100))).toEqual([2]);
  });
});

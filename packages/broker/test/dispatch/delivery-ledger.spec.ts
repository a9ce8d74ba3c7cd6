import { SlotState } from '../../src/dispatch/ledger/slot';
import { cursorOnly } from '../../src/storage/subscription-snapshot';
import { DeliveryLedger } from '../../src/dispatch/ledger/delivery-ledger';
import { admitAll, HTTP_500, LEASE_MS, ledgerOf, NACK, offsets, REFUSED, takeOne, TEST_LIMITS } from './ledger-fixture';

describe('the delivery ledger hands out messages', () => {
  it('takes the lowest available offsets first, up to max', () => {
    const ledger = ledgerOf(5);
    expect(offsets(ledger.take('m1', 2, Infinity, 0, LEASE_MS))).toEqual([0, 1]);
    expect(offsets(ledger.take('m2', 2, Infinity, 0, LEASE_MS))).toEqual([2, 3]);
    ledger.release(ledger.leaseAt(1)!, HTTP_500, 0);
    expect(offsets(ledger.take('m3', 5, Infinity, 0, LEASE_MS))).toEqual([1, 4]);
    expect(ledger.take('m3', 5, Infinity, 0, LEASE_MS)).toEqual([]);
  });

  it('stops at maxBytes but always takes at least one message', () => {
    const ledger = ledgerOf([{ bytes: 600 }, { bytes: 300 }, { bytes: 200 }, { bytes: 50 }]);
    expect(offsets(ledger.take('m1', 10, 100, 0, LEASE_MS))).toEqual([0]);
    expect(offsets(ledger.take('m1', 10, 500, 0, LEASE_MS))).toEqual([1, 2]);
    expect(offsets(ledger.take('m1', 10, 500, 0, LEASE_MS))).toEqual([3]);
  });

  it('counts each lease as a delivery, so the second and later are redeliveries', () => {
    const ledger = ledgerOf(1);
    const slot = takeOne(ledger);
    expect([slot.deliveries, slot.member, slot.state, slot.deadline]).toEqual([1, 'm1', SlotState.LEASED, LEASE_MS]);
    ledger.release(slot, HTTP_500, 0);
    expect(takeOne(ledger, 5, 'm2').deliveries).toBe(2);
    expect(ledger.leaseAt(0, 1)).toBeUndefined();
    expect(ledger.leaseAt(0, 2)).toBe(slot);
  });

  it('takes a delivery back when it cannot have reached a handler (counted: false)', () => {
    const ledger = ledgerOf(1);
    const slot = takeOne(ledger);
    expect(ledger.release(slot, REFUSED, 0)).toBeUndefined();
    expect(slot.deliveries).toBe(0);
    expect(takeOne(ledger).deliveries).toBe(1);
  });

  it('tracks how many messages are leased and to whom', () => {
    const ledger = ledgerOf(4);
    ledger.take('m1', 2, Infinity, 0, LEASE_MS);
    ledger.take('m2', 1, Infinity, 0, LEASE_MS);
    expect(ledger.leased).toBe(3);
    expect(ledger.available).toBe(1);
    expect(offsets(ledger.leasesOf('m1'))).toEqual([0, 1]);
    ledger.settle(ledger.leaseAt(0)!);
    ledger.release(ledger.leaseAt(1)!, REFUSED, 0);
    ledger.terminate(ledger.leaseAt(2)!, 'TERMINATED');
    expect(ledger.leased).toBe(0);
    expect(ledger.leasesOf('m1')).toEqual([]);
  });

  it('tells its watcher of every lease that starts and ends, while the slot still holds its message', () => {
    const events: string[] = [];
    const ledger = new DeliveryLedger(cursorOnly(0), TEST_LIMITS, false, {
      leased: (slot) => events.push(`+${slot.envelope!.id}`),
      ended: (slot) => events.push(`-${slot.envelope!.id}`),
    });
    admitAll(ledger, [{}, {}, {}, {}]);
    const [settled, released, terminated, expired] = ledger.take('m1', 4, Infinity, 0, LEASE_MS);
    ledger.settle(settled);
    ledger.release(released, REFUSED, 0);
    ledger.terminate(terminated, 'TERMINATED');
    for (const slot of ledger.expired(LEASE_MS)) ledger.release(slot, { outcome: 'LEASE_EXPIRED', counted: true }, LEASE_MS);
    ledger.settle(terminated);
    expect(expired.state).toBe(SlotState.AVAILABLE);
    expect(events).toEqual(['+m0', '+m1', '+m2', '+m3', '-m0', '-m1', '-m2', '-m3']);
  });
});

describe('the delivery ledger bounds redelivery', () => {
  it('dead-letters with NACK on the NACK after maxNackRetries, with the last NACK message', () => {
    const ledger = ledgerOf(1); // maxNackRetries 2
    for (let i = 0; i < 2; i++) expect(ledger.release(takeOne(ledger), NACK, 0)).toBeUndefined();
    const slot = takeOne(ledger);
    expect(ledger.release(slot, NACK, 0)).toEqual({ reason: 'NACK', lastError: 'not now' });
    expect([slot.state, slot.nacks, slot.deliveries]).toEqual([SlotState.DEAD_LETTERING, 3, 3]);
    expect(slot.history.map((attempt) => attempt.outcome)).toEqual(['NACK', 'NACK', 'NACK']);
    expect(ledger.take('m1', 1, Infinity, 0, LEASE_MS)).toEqual([]);
  });

  it('dead-letters with MAX_DELIVERIES when the maxDeliveries-th counted delivery fails', () => {
    const ledger = ledgerOf(1); // maxDeliveries 5
    for (let i = 0; i < 4; i++) expect(ledger.release(takeOne(ledger), HTTP_500, 0)).toBeUndefined();
    const verdict = ledger.release(takeOne(ledger), HTTP_500, 0);
    expect(verdict).toEqual({ reason: 'MAX_DELIVERIES', lastError: '5 deliveries, the last: HTTP 500' });
  });

  it('does not count refused deliveries towards maxDeliveries', () => {
    const ledger = ledgerOf(1);
    for (let i = 0; i < 20; i++) expect(ledger.release(takeOne(ledger), REFUSED, 0)).toBeUndefined();
    expect(ledger.leased).toBe(0);
    expect(takeOne(ledger).deliveries).toBe(1);
  });

  it('never dead-letters failures with maxDeliveries -1', () => {
    const ledger = ledgerOf(1, undefined, { maxDeliveries: -1, maxNackRetries: 2 });
    for (let i = 0; i < 50; i++) expect(ledger.release(takeOne(ledger), HTTP_500, 0)).toBeUndefined();
    expect(takeOne(ledger).deliveries).toBe(51);
  });

  it('terminates a leased message for dead-lettering, which settles it after', () => {
    const ledger = ledgerOf(2);
    const slot = takeOne(ledger);
    expect(ledger.terminate(slot, 'TERMINATED')).toBe(true);
    expect(ledger.terminate(slot, 'TERMINATED')).toBe(false);
    expect(slot.state).toBe(SlotState.DEAD_LETTERING);
    expect(ledger.cursor).toBe(0);
    ledger.settle(slot);
    expect(ledger.cursor).toBe(1);
    expect(ledger.release(slot, HTTP_500, 0)).toBeUndefined();
  });
});

describe('the delivery ledger delays and expires', () => {
  it('keeps a message NACKed with a delay back until availableAt, and reports it as due', () => {
    const ledger = ledgerOf(1);
    const slot = takeOne(ledger, 100);
    ledger.release(slot, { ...NACK, delayMs: 50 }, 100);
    expect([slot.state, slot.availableAt]).toEqual([SlotState.DELAYED, 150]);
    expect(ledger.nextDue()).toBe(150);
    expect(ledger.take('m1', 1, Infinity, 149, LEASE_MS)).toEqual([]);
    ledger.promote(149);
    expect(ledger.available).toBe(0);
    ledger.promote(150);
    expect(ledger.available).toBe(1);
    expect(takeOne(ledger, 150)).toBe(slot);
  });

  it('makes a delayed message available when taking after its delay', () => {
    const ledger = ledgerOf(1);
    ledger.release(takeOne(ledger), { ...NACK, delayMs: 10 }, 0);
    expect(takeOne(ledger, 10).deliveries).toBe(2);
  });

  it('reports leases whose deadline has passed, and the next deadline', () => {
    const ledger = ledgerOf(3);
    takeOne(ledger, 0, 'm1', 100);
    takeOne(ledger, 10, 'm1', 100);
    takeOne(ledger, 20, 'm1', 100);
    expect(ledger.nextDue()).toBe(100);
    expect(offsets(ledger.expired(99))).toEqual([]);
    expect(offsets(ledger.expired(110))).toEqual([0, 1]);
    expect(ledger.nextDue()).toBe(120);
  });

  it('does not report an extended lease at its old deadline', () => {
    const ledger = ledgerOf(1);
    const slot = takeOne(ledger, 0, 'm1', 100);
    expect(ledger.extend(slot, 50, 100)).toBe(true);
    expect(ledger.expired(120)).toEqual([]);
    expect(ledger.expired(150)).toEqual([slot]);
  });

  it('does not report a re-leased message at its previous lease deadline', () => {
    const ledger = ledgerOf(1);
    const slot = takeOne(ledger, 0, 'm1', 100);
    ledger.release(slot, HTTP_500, 10);
    takeOne(ledger, 20, 'm2', 1_000);
    expect(ledger.expired(500)).toEqual([]);
    ledger.settle(slot);
    expect(ledger.expired(5_000)).toEqual([]);
  });

  it('reports an expired lease once, even when it was extended to the same deadline', () => {
    const ledger = ledgerOf(1);
    const slot = takeOne(ledger, 0, 'm1', 100);
    ledger.extend(slot, 0, 100);
    expect(ledger.expired(100)).toEqual([slot]);
  });

  it('reports an expired lease once, when a refused delivery was leased again to the same deadline', () => {
    const ledger = ledgerOf(1);
    const slot = takeOne(ledger, 0, 'm1', 100);
    ledger.release(slot, REFUSED, 10);
    takeOne(ledger, 40, 'm1', 60);
    expect(ledger.expired(100)).toEqual([slot]);
  });

  it('never expires a push lease (Infinity), and records how long an extended push may take', () => {
    const ledger = ledgerOf(1);
    const slot = takeOne(ledger, 0, 'push', Infinity);
    expect(ledger.nextDue()).toBeUndefined();
    expect(ledger.expired(Number.MAX_SAFE_INTEGER)).toEqual([]);
    expect(ledger.extend(slot, 500, 2_000)).toBe(true);
    expect([slot.deadline, slot.extendedUntil]).toEqual([Infinity, 2_500]);
    expect(ledger.nextDue()).toBeUndefined();
    ledger.settle(slot);
    expect(ledger.extend(slot, 600, 2_000)).toBe(false);
  });
});

describe('the last attempt of a message', () => {
  it('is the delivery whose NACK uses up the NACK retries, however many deliveries are left', () => {
    const ledger = ledgerOf(1, cursorOnly(0), { maxDeliveries: -1, maxNackRetries: 2 });
    const seen: boolean[] = [];
    for (let verdict; verdict === undefined;) {
      const slot = takeOne(ledger);
      seen.push(ledger.isLastAttempt(slot));
      verdict = ledger.release(slot, NACK, 0);
    }
    expect(seen).toEqual([false, false, true]);
  });

  it('is delivery number maxDeliveries, after which any counted failure dead-letters it', () => {
    const ledger = ledgerOf(1, cursorOnly(0), { maxDeliveries: 3, maxNackRetries: 10 });
    const seen: boolean[] = [];
    for (let verdict; verdict === undefined;) {
      const slot = takeOne(ledger);
      seen.push(ledger.isLastAttempt(slot));
      verdict = ledger.release(slot, HTTP_500, 0);
    }
    expect(seen).toEqual([false, false, true]);
  });

  it('is not taken by a delivery that was taken back (a refused connection)', () => {
    const ledger = ledgerOf(1, cursorOnly(0), { maxDeliveries: 1, maxNackRetries: 10 });
    const refused = takeOne(ledger);
    expect(ledger.isLastAttempt(refused)).toBe(true);
    ledger.release(refused, REFUSED, 0);
    expect(ledger.isLastAttempt(takeOne(ledger))).toBe(true);
  });
});

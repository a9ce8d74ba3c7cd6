import { DeliveryLedger } from '../../src/dispatch/ledger/delivery-ledger';
import { SlotState } from '../../src/dispatch/ledger/slot';
import { seekSnapshot } from '../../src/seek/seek-plan';
import { admitAll, LEASE_MS, ledgerOf, offsets, TEST_LIMITS } from './ledger-fixture';

/** A seek restarts a subscription's window at its target. */
describe('the delivery ledger restarted by a seek', () => {
  it('ends every lease (an ACK of one changes nothing), forgets the window and reads again from the target', () => {
    const ended: number[] = [];
    const ledger = new DeliveryLedger(seekSnapshot({ cursor: 0, settled: [], counts: [], deliveredMark: 0 }, 0), TEST_LIMITS, false, {
      leased: () => undefined,
      ended: (slot) => ended.push(slot.offset),
    });
    admitAll(ledger, [{}, {}, {}, {}, {}, {}]);
    const leased = ledger.take('m1', 3, Infinity, 0, LEASE_MS, 0);
    ledger.settle(leased[0]);
    ledger.release(ledger.take('m1', 1, Infinity, 0, LEASE_MS, 0)[0], { outcome: 'NACK', counted: true, delayMs: 500 }, 0);
    // The subscription reserves the mark before it hands out offsets; 0–3 were.
    ledger.reserveMark(4);
    const version = ledger.version;
    ended.length = 0;

    expect(ledger.restart(seekSnapshot(ledger.snapshot(), 1))).toBe(2);
    expect(ended.sort()).toEqual([1, 2]);
    expect(leased.slice(1).map((slot) => slot.state)).toEqual([SlotState.SETTLED, SlotState.SETTLED]);
    expect(ledger.leaseAt(1)).toBeUndefined();
    expect([ledger.cursor, ledger.readEnd, ledger.leased, ledger.available, ledger.nextDue()]).toEqual([1, 1, 0, 0, undefined]);
    expect(ledger.version).toBeGreaterThan(version);
    // An ACK of an old lease is nothing to the new window.
    ledger.settle(leased[1]);
    expect(ledger.cursor).toBe(1);

    admitAll(ledger, [{}, {}, {}, {}, {}]);
    const again = ledger.take('m2', 10, Infinity, 0, LEASE_MS, 0);
    expect(offsets(again)).toEqual([1, 2, 3, 4, 5]);
    // Below the delivery mark: a replay says they may have been seen.
    expect(again.map((slot) => slot.deliveries)).toEqual([2, 2, 2, 1, 1]);
  });

  it('moves forward past unsettled messages, which are then never handed out', () => {
    const ledger = ledgerOf(5);
    ledger.take('m1', 1, Infinity, 0, LEASE_MS, 0);
    ledger.restart(seekSnapshot(ledger.snapshot(), 4));
    expect(ledger.snapshot()).toEqual({ cursor: 4, settled: [], counts: [], deliveredMark: 4 });
    admitAll(ledger, [{}]);
    expect(offsets(ledger.take('m1', 5, Infinity, 0, LEASE_MS, 0))).toEqual([4]);
  });
});

import { DeliveryLedger } from '../../src/dispatch/ledger/delivery-ledger';
import { Slot } from '../../src/dispatch/ledger/slot';
import { LeasedIds } from '../../src/dispatch/leased-ids';
import type { Subscription } from '../../src/dispatch/subscription';
import { cursorOnly } from '../../src/storage/subscription-snapshot';
import { admitAll, LEASE_MS, REFUSED, TEST_LIMITS } from './ledger-fixture';

/** Two ledgers (two topics of one consumer) feeding one index, as a consumer's subscriptions do. */
function consumerOf(count: number) {
  const ids = new LeasedIds();
  const topics = ['a', 'b'].map((name) => {
    const subscription = { name } as unknown as Subscription;
    const idOf = (slot: Slot) => slot.envelope!.id!;
    const ledger = new DeliveryLedger(cursorOnly(0), TEST_LIMITS, false, {
      leased: (slot) => ids.add(idOf(slot), subscription, slot),
      ended: (slot) => ids.remove(idOf(slot), slot),
    });
    admitAll(
      ledger,
      Array.from({ length: count }, () => ({})),
    );
    return { subscription, ledger };
  });
  return { ids, topics };
}

describe('a consumer’s leases by message id', () => {
  it('finds a lease of any of its topics, and forgets it when the lease ends however it ends', () => {
    const { ids, topics } = consumerOf(3);
    const [a] = topics;
    const [settled, released, terminated] = a.ledger.take('m1', 3, Infinity, 0, LEASE_MS);
    expect(ids.find('m1')).toEqual({ subscription: a.subscription, slot: released });
    a.ledger.settle(settled);
    a.ledger.release(released, REFUSED, 0);
    a.ledger.terminate(terminated, 'TERMINATED');
    expect([ids.find('m0'), ids.find('m1'), ids.find('m2')]).toEqual([undefined, undefined, undefined]);
    expect(ids.size).toBe(0);
  });

  it('resolves an id leased in two topics to the older lease, then to the other', () => {
    const { ids, topics } = consumerOf(1);
    const [b, a] = [topics[1], topics[0]];
    const [inB] = b.ledger.take('m1', 1, Infinity, 0, LEASE_MS);
    const [inA] = a.ledger.take('m1', 1, Infinity, 0, LEASE_MS);
    expect(ids.find('m0')?.slot).toBe(inB);
    b.ledger.settle(inB);
    expect(ids.find('m0')).toEqual({ subscription: a.subscription, slot: inA });
    a.ledger.settle(inA);
    expect(ids.find('m0')).toBeUndefined();
    expect(ids.size).toBe(0);
  });

  it('holds one entry per leased message, whatever the window holds', () => {
    const { ids, topics } = consumerOf(1000);
    topics[0].ledger.take('m1', 10, Infinity, 0, LEASE_MS);
    expect(ids.size).toBe(10);
  });
});

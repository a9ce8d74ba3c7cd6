import { LeaseKeeper } from '../../src/pull/lease-keeper';

/** A 3 s lease: the keeper ticks every second. */
const LEASE_MS = 3000;
const TICK_MS = 1000;

function keeper(maxExtensionMs = 10_000, lost: string[] = []) {
  const calls: Array<{ leases: string[]; leaseMs: number }> = [];
  const warn = jest.fn();
  const kept = new LeaseKeeper(
    async (leases, leaseMs) => {
      calls.push({ leases, leaseMs });
      return { lost: lost.filter((lease) => leases.includes(lease)) };
    },
    { leaseMs: LEASE_MS, maxExtensionMs },
    { warn },
  );
  return { kept, calls, warn };
}

describe('LeaseKeeper', () => {
  it('extends, in one call, every lease held a third of a lease or longer since its fetch or last extension', async () => {
    const { kept, calls } = keeper();
    kept.hold('a', 0);
    kept.hold('b', 500);
    await kept.tick(999);
    expect(calls).toEqual([]);
    await kept.tick(1000);
    await kept.tick(1500);
    await kept.tick(2000);
    expect(calls).toEqual([
      { leases: ['a'], leaseMs: LEASE_MS },
      { leases: ['b'], leaseMs: LEASE_MS },
      { leases: ['a'], leaseMs: LEASE_MS },
    ]);
    kept.stop();
  });

  it('stops extending a lease once it was held maxExtensionMs after its fetch, and forgets the released and the lost', async () => {
    const { kept, calls } = keeper(2500, ['lost']);
    kept.hold('old', 0);
    kept.hold('lost', 0);
    kept.hold('settled', 0);
    kept.release('settled');
    await kept.tick(TICK_MS);
    await kept.tick(2 * TICK_MS);
    await kept.tick(3 * TICK_MS);
    expect(calls.map(({ leases }) => leases)).toEqual([['old', 'lost'], ['old']]);
    kept.stop();
  });

  it('keeps nothing with maxExtensionMs 0', async () => {
    const { kept, calls } = keeper(0);
    kept.hold('a', 0);
    await kept.tick(5 * TICK_MS);
    expect(kept.enabled).toBe(false);
    expect(calls).toEqual([]);
  });

  it('warns once when extending fails and tries again at the next tick', async () => {
    const warn = jest.fn();
    let fail = true;
    const extend = jest.fn(async () => {
      if (fail) throw new Error('ECONNREFUSED');
      return { lost: [] };
    });
    const kept = new LeaseKeeper(extend, { leaseMs: LEASE_MS, maxExtensionMs: 60_000 }, { warn });
    kept.hold('a', 0);
    await kept.tick(TICK_MS);
    await kept.tick(2 * TICK_MS);
    fail = false;
    await kept.tick(3 * TICK_MS);
    expect(extend).toHaveBeenCalledTimes(3);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toMatch(/Extending 1 leases failed; retrying: ECONNREFUSED/);
    kept.stop();
  });
});

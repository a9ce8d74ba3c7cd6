import { MinHeap } from '../../src/dispatch/ledger/min-heap';
import { LEASE_MS, ledgerOf, offsets, takeOne } from './ledger-fixture';

/** Entries in a ledger's expiry heap, live or stale: what it holds on to. */
const expiryEntries = (ledger: object) => (ledger as { expiries: MinHeap<unknown> }).expiries.size;

describe('MinHeap.retain', () => {
  it('drops what is refused and keeps the rest in heap order', () => {
    const heap = new MinHeap<number>((a, b) => a < b);
    for (const n of [9, 4, 7, 1, 8, 2, 6, 3, 5, 0]) heap.push(n);
    heap.retain((n) => n % 3 !== 0);
    const popped: number[] = [];
    for (let n = heap.pop(); n !== undefined; n = heap.pop()) popped.push(n);
    expect(popped).toEqual([1, 2, 4, 5, 7, 8]);
  });
});

describe('the delivery ledger watches lease deadlines', () => {
  it('does not hold the deadlines of settled leases until they pass: 100,000 leases settled one by one leave few', () => {
    const ledger = ledgerOf(100_000);
    for (let i = 0; i < 100_000; i++) ledger.settle(takeOne(ledger, i));
    expect(expiryEntries(ledger)).toBeLessThanOrEqual(1_025);
  });

  it('still ends every live lease at its deadline, extended ones at the new one', () => {
    const ledger = ledgerOf(5_000);
    const kept = [takeOne(ledger, 0), takeOne(ledger, 0)];
    for (let i = 0; i < 4_000; i++) ledger.settle(takeOne(ledger, 1));
    ledger.extend(kept[1], 10, LEASE_MS);
    for (let i = 0; i < 900; i++) ledger.settle(takeOne(ledger, 20));
    expect(offsets(ledger.expired(LEASE_MS))).toEqual([0]);
    expect(offsets(ledger.expired(10 + LEASE_MS))).toEqual([1]);
  });
});

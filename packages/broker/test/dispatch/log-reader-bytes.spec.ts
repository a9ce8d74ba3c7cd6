import { DeliveryLedger } from '../../src/dispatch/ledger/delivery-ledger';
import { LogReader, LogReaderHost } from '../../src/dispatch/ledger/log-reader';
import { WindowBudget } from '../../src/dispatch/ledger/window-budget';
import { encodeEnvelope } from '../../src/format/message-envelope';
import type { TopicQueue } from '../../src/storage/topic-queue';
import { cursorOnly } from '../../src/storage/subscription-snapshot';
import { LEASE_MS, TEST_LIMITS } from './ledger-fixture';

/** A topic of messages with `contentBytes` of content each, in memory, read the way a subscription reads it. */
function topic(sizes: number[]): TopicQueue {
  const entries = sizes.map((size, n) =>
    encodeEnvelope({ id: `m${n}`, topic: 't', publishedAt: 0, headers: {}, content: Buffer.alloc(size, 120) }),
  );
  const queue = {
    startOffset: 0,
    tailOffset: entries.length,
    peekMany: async (from: number, max: number) => entries.slice(from, from + max),
  };
  return queue as unknown as TopicQueue;
}

const host: LogReaderHost = {
  stopping: false,
  skipCorrupt: () => undefined,
  skipFiltered: () => undefined,
  skipDeleted: () => undefined,
  backoff: async () => undefined,
};

/** A subscription's ledger and reader on `queue`, both told of `budget`. */
function subscription(queue: TopicQueue, budget: WindowBudget): { ledger: DeliveryLedger; reader: LogReader } {
  const ledger = new DeliveryLedger(cursorOnly(0), TEST_LIMITS, false, undefined, undefined, budget);
  return { ledger, reader: new LogReader(queue, ledger, host, undefined, undefined, budget) };
}

describe('a log reader bounded by bytes', () => {
  it('stops reading ahead at the subscription byte bound, and reads on once messages are settled', async () => {
    const { ledger, reader } = subscription(topic(new Array<number>(100).fill(1000)), new WindowBudget(1_000_000, 10_000));
    await reader.fill(100);
    // About 10 entries of ~1 KiB fit in 10,000 bytes; never more than the bound.
    expect(ledger.heldBytes).toBeLessThanOrEqual(10_000);
    expect(ledger.windowSize).toBeGreaterThan(0);
    expect(ledger.windowSize).toBeLessThan(100);
    const before = ledger.readEnd;

    await reader.fill(100);
    expect(ledger.readEnd).toBe(before);

    for (const slot of ledger.take('m', 5, Infinity, 0, LEASE_MS)) ledger.settle(slot);
    await reader.fill(100);
    expect(ledger.readEnd).toBeGreaterThan(before);
    expect(ledger.heldBytes).toBeLessThanOrEqual(10_000);
  });

  it('delivers every message of a backlog larger than the bound, settling as it goes', async () => {
    const budget = new WindowBudget(1_000_000, 5_000);
    const { ledger, reader } = subscription(topic(new Array<number>(200).fill(700)), budget);
    let delivered = 0;
    for (let rounds = 0; delivered < 200 && rounds < 1000; rounds++) {
      await reader.fill(50);
      expect(ledger.heldBytes).toBeLessThanOrEqual(5_000);
      for (const slot of ledger.take('m', 50, Infinity, 0, LEASE_MS)) {
        ledger.settle(slot);
        delivered++;
      }
    }
    expect(delivered).toBe(200);
    expect(ledger.heldBytes).toBe(0);
    expect(budget.bytes).toBe(0);
  });

  it('reads one message larger than the whole bound when it holds nothing, one at a time', async () => {
    const { ledger, reader } = subscription(topic([50_000, 50_000, 10]), new WindowBudget(20_000, 20_000));
    await reader.fill(10);
    expect(ledger.windowSize).toBe(1);
    const [first] = ledger.take('m', 10, Infinity, 0, LEASE_MS);
    expect(first.offset).toBe(0);

    // Still held: nothing more fits.
    await reader.fill(10);
    expect(ledger.windowSize).toBe(1);

    ledger.settle(first);
    await reader.fill(10);
    expect(ledger.take('m', 10, Infinity, 0, LEASE_MS).map((slot) => slot.offset)).toEqual([1]);
  });

  it('shares the broker-wide bound: one subscription holding it pauses another, which still reads one message', async () => {
    const budget = new WindowBudget(20_000, 20_000);
    const a = subscription(topic(new Array<number>(100).fill(1000)), budget);
    const b = subscription(topic(new Array<number>(100).fill(1000)), budget);
    await a.reader.fill(100);
    expect(budget.bytes).toBeGreaterThan(15_000);
    expect(budget.bytes).toBeLessThanOrEqual(20_000);

    await b.reader.fill(100);
    // Holding nothing, it may read one whatever the others hold; then it waits for room.
    expect(b.ledger.windowSize).toBe(1);
    await b.reader.fill(100);
    expect(b.ledger.windowSize).toBe(1);

    // The first gives back its memory (settled, or stopped): the second reads ahead again.
    for (const slot of a.ledger.take('m', 100, Infinity, 0, LEASE_MS)) a.ledger.settle(slot);
    await b.reader.fill(100);
    expect(b.ledger.windowSize).toBeGreaterThan(10);
    expect(budget.bytes).toBe(b.ledger.heldBytes);
  });

  it('gives back what a stopped subscription held, and counts nothing it holds after', async () => {
    const budget = new WindowBudget(1_000_000, 100_000);
    const { ledger, reader } = subscription(topic(new Array<number>(50).fill(1000)), budget);
    await reader.fill(50);
    expect(budget.bytes).toBe(ledger.heldBytes);
    const [slot] = ledger.take('m', 1, Infinity, 0, LEASE_MS);
    ledger.detach();
    expect(budget.bytes).toBe(0);
    ledger.settle(slot);
    expect(budget.bytes).toBe(0);
  });

  it('counts what a seek gives up, and what is being dead-lettered until it is settled', async () => {
    const budget = new WindowBudget(1_000_000, 100_000);
    const { ledger, reader } = subscription(topic(new Array<number>(10).fill(1000)), budget);
    await reader.fill(10);
    const [leased] = ledger.take('m', 1, Infinity, 0, LEASE_MS);
    ledger.terminate(leased, 'TOO_LARGE');
    ledger.restart(cursorOnly(0));
    expect(budget.bytes).toBe(leased.bytes);
    ledger.settle(leased);
    expect(budget.bytes).toBe(0);
    expect(ledger.heldBytes).toBe(0);
  });
});

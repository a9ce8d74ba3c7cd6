import type { MessageHeaders, Selector } from '@mmmq/core';
import { DeliveryLedger } from '../../src/dispatch/ledger/delivery-ledger';
import { LogReader, LogReaderHost } from '../../src/dispatch/ledger/log-reader';
import { SELECTOR_TURN_BUDGET_MS } from '../../src/dispatch/selector-turn-budget';
import { encodeEnvelope } from '../../src/format/message-envelope';
import type { TopicQueue } from '../../src/storage/topic-queue';
import { cursorOnly } from '../../src/storage/subscription-snapshot';
import { TEST_LIMITS } from './ledger-fixture';

/** What happened, in order: `m` a selector evaluation, `t` a turn of the event loop seen by a probe. */
type Event = 'm' | 't';

/** A selector that takes `costMs` of CPU per message (busy, like a heavy LIKE) and selects even offsets. */
class SlowSelector implements Selector {
  readonly text = 'slow';
  constructor(
    private readonly events: Event[],
    private readonly costMs: number,
  ) {}
  matches(headers: Readonly<MessageHeaders>): boolean {
    this.events.push('m');
    const until = performance.now() + this.costMs;
    while (performance.now() < until);
    return (headers.n as number) % 2 === 0;
  }
}

/** A topic holding `count` messages in memory, read the way a subscription reads it. */
function topic(count: number): TopicQueue {
  const entries = Array.from({ length: count }, (_, n) =>
    encodeEnvelope({ id: `m${n}`, topic: 't', publishedAt: 0, headers: { n }, content: Buffer.from('{}') }),
  );
  const queue = {
    startOffset: 0,
    tailOffset: count,
    peekMany: async (from: number, max: number) => entries.slice(from, from + max),
  };
  return queue as unknown as TopicQueue;
}

function host(): LogReaderHost & { filtered: number } {
  return {
    stopping: false,
    filtered: 0,
    skipCorrupt: () => undefined,
    skipFiltered(count: number) {
      this.filtered += count;
    },
    skipDeleted: () => undefined,
    backoff: async () => undefined,
  };
}

/** Records a `t` at every turn of the event loop until stopped. */
function probe(events: Event[]): () => void {
  let running = true;
  const tick = (): void => {
    if (!running) return;
    events.push('t');
    setImmediate(tick);
  };
  setImmediate(tick);
  return () => {
    running = false;
  };
}

/** The longest run of selector evaluations with no turn of the event loop between them. */
function longestRun(events: Event[]): number {
  let longest = 0;
  let run = 0;
  for (const event of events) {
    run = event === 'm' ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

describe('a log reader with a costly selector', () => {
  it('gives the event loop a turn once the budget is spent, instead of judging a whole read in one turn', async () => {
    const events: Event[] = [];
    const cost = 2;
    const ledger = new DeliveryLedger(cursorOnly(0), TEST_LIMITS);
    const readerHost = host();
    const reader = new LogReader(topic(200), ledger, readerHost, new SlowSelector(events, cost));
    const stop = probe(events);
    try {
      await reader.fill(1000);
    } finally {
      stop();
    }
    // Everything was judged, once, in order, and the skips were all reported.
    expect(events.filter((event) => event === 'm')).toHaveLength(200);
    expect(ledger.readEnd).toBe(200);
    expect(readerHost.filtered).toBe(100);
    expect(ledger.available).toBe(100);
    // Each evaluation takes at least `cost` ms, so a turn holds at most budget / cost of them, plus the one that
    // crosses the budget; a slower machine only fits fewer. Before the budget, all 200 ran in one turn.
    expect(longestRun(events)).toBeLessThanOrEqual(Math.ceil(SELECTOR_TURN_BUDGET_MS / cost) + 1);
  });

  it('shares the budget between readers: two subscriptions judging at once do not take a budget each per turn', async () => {
    const events: Event[] = [];
    const cost = 2;
    const readers = [0, 1].map(
      () => new LogReader(topic(40), new DeliveryLedger(cursorOnly(0), TEST_LIMITS), host(), new SlowSelector(events, cost)),
    );
    const stop = probe(events);
    try {
      await Promise.all(readers.map((reader) => reader.fill(1000)));
    } finally {
      stop();
    }
    expect(events.filter((event) => event === 'm')).toHaveLength(80);
    // A budget each would allow twice as many.
    expect(longestRun(events)).toBeLessThanOrEqual(Math.ceil(SELECTOR_TURN_BUDGET_MS / cost) + 2);
  });

  it('stops judging when the subscription stops while it waits for a turn', async () => {
    const events: Event[] = [];
    const ledger = new DeliveryLedger(cursorOnly(0), TEST_LIMITS);
    const readerHost = host();
    const reader = new LogReader(topic(200), ledger, readerHost, new SlowSelector(events, 2));
    const reading = reader.fill(1000);
    setImmediate(() => {
      (readerHost as { stopping: boolean }).stopping = true;
    });
    await reading;
    expect(ledger.readEnd).toBeLessThan(200);
    expect(events.filter((event) => event === 'm')).toHaveLength(ledger.readEnd);
  });
});

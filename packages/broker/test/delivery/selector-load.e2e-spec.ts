import { longestTurn, TestConsumer } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';

const DISPATCHERS = 10;
const MESSAGES = 200;
const BATCH = 50;
/**
 * A 4 KiB LIKE pattern of runs that almost match a 4 KiB header of `a`s: the previous backtracking matcher took about
 * 3 ms per message on it (2,000 evaluations here), the current one a few hundredths of a millisecond.
 */
const SELECTOR = `blob LIKE '%${`${'a'.repeat(50)}b%`.repeat(78)}'`;
const BLOB = 'a'.repeat(4000);
/**
 * The most CPU time one turn of the event loop may take meanwhile: with the fix a few to tens of ms on a loaded 2-CPU
 * machine, without it 1.9 s. CPU time, not wall time: a busy machine deschedules the process, which stretches the gaps
 * between turns but not the work done in them. The structural property, that a read gives the event loop a turn once
 * its budget is spent, is tested exactly in log-reader-selector-turns.spec.ts.
 */
const MAX_STALL_MS = 200;

describe('selectors under load keep the event loop turning', () => {
  let broker: BrokerApp;
  let consumer: TestConsumer;

  beforeAll(async () => {
    broker = await startBroker();
    consumer = new TestConsumer();
    await consumer.start();
  });
  afterAll(async () => {
    await consumer.stop();
    await broker.close();
  });

  it(`${DISPATCHERS} dispatchers with 4 KiB LIKE selectors do not stall the event loop while ${MESSAGES} messages with 4 KiB headers are published`, async () => {
    const topic = 'sel.load';
    for (let d = 0; d < DISPATCHERS; d++) await broker.addDispatcher(`heavy-${d}`, consumer.url, topic, { selector: SELECTOR });
    // The topic and its subscriptions exist before the measured publishes.
    const first = await broker.request('POST', '/mmmq/messages', { topic, content: 0, headers: { blob: 'b' } });
    expect(first.status).toBe(200);
    for (let d = 0; d < DISPATCHERS; d++) await broker.caughtUp(`heavy-${d}`, topic);

    const { cpuMs: longest } = await longestTurn(async () => {
      const batches = Array.from({ length: MESSAGES / BATCH }, (_, b) =>
        broker.request('POST', '/mmmq/messages/batch', {
          messages: Array.from({ length: BATCH }, (__, i) => ({ topic, content: b * BATCH + i, headers: { blob: BLOB } })),
        }),
      );
      for (const response of await Promise.all(batches)) expect(response.status).toBe(200);
      // Every subscription has judged (and skipped) every message.
      for (let d = 0; d < DISPATCHERS; d++) await broker.caughtUp(`heavy-${d}`, topic);
    });
    const stats = await Promise.all(Array.from({ length: DISPATCHERS }, (_, d) => broker.subscription(`heavy-${d}`, topic)));
    expect(stats.map((subscription) => subscription.stats.filtered)).toEqual(Array(DISPATCHERS).fill(MESSAGES + 1));
    expect(consumer.received).toEqual([]);
    expect(longest).toBeLessThan(MAX_STALL_MS);
  });
});

import { BrokerApp, range, startBroker, TestConsumer, waitFor } from '@mmmq/test-support';
import { WindowBudget } from '../../src/dispatch/ledger/window-budget';
import { SubscriptionContainer } from '../../src/dispatch/subscription-container';

const BOUND = 256 * 1024;
const CONTENT_CHARS = 60 * 1024;
const MESSAGES = 40;

describe('a subscription of large messages stays within memory.subscriptionWindowBytes', () => {
  let broker: BrokerApp;
  const consumer = new TestConsumer();

  beforeAll(async () => {
    await consumer.start();
    broker = await startBroker({ memory: { subscriptionWindowBytes: BOUND, windowBytes: 4 * BOUND } });
  });
  afterAll(async () => {
    await broker.close();
    await consumer.stop();
  });

  /** The most bytes the consumer's subscriptions held at once, sampled every millisecond while `work` runs. */
  async function peakHeld(consumerId: string, work: () => Promise<void>): Promise<number> {
    const subscriptions = broker.app.get(SubscriptionContainer);
    let peak = 0;
    const sampler = setInterval(() => {
      for (const subscription of subscriptions.subscriptionsOf(consumerId)) peak = Math.max(peak, subscription.heldBytes);
    }, 1);
    try {
      await work();
    } finally {
      clearInterval(sampler);
    }
    return peak;
  }

  it('delivers a backlog of many times the bound to a slow consumer, holding at most the bound', async () => {
    // Slow answers keep 16 pushes in flight: without the bound, 16 leases and the read-ahead would hold ~3 MiB.
    consumer.reply = () => ({ ackAfterMs: 20 });
    await broker.publishAll(
      'scan.page',
      range(MESSAGES).map((n) => `${n}`.padEnd(CONTENT_CHARS, '.')),
    );
    const peak = await peakHeld('scanner', async () => {
      await broker.addDispatcher('scanner', consumer.url, 'scan.*', { maxInFlight: 16 });
      await consumer.waitFor(() => consumer.received.length >= MESSAGES, { message: `${MESSAGES} pages` });
      await broker.caughtUp('scanner', 'scan.page');
    });
    expect(peak).toBeGreaterThan(CONTENT_CHARS);
    expect(peak).toBeLessThanOrEqual(BOUND);
    expect(new Set(consumer.received.map((delivery) => delivery.body.offset))).toEqual(new Set(range(MESSAGES)));
    await waitFor(() => broker.app.get(WindowBudget).bytes === 0, { message: 'the settled pages to be given back' });
  });

  it('delivers a message larger than the bound on its own', async () => {
    consumer.reply = () => 'ACK';
    const before = consumer.received.length;
    await broker.publishAll('bulk.file', ['small', 'x'.repeat(BOUND + 100_000), 'after']);
    await broker.addDispatcher('bulk', consumer.url, 'bulk.*');
    await consumer.waitFor(() => consumer.received.length >= before + 3, { message: 'the three files' });
    await broker.caughtUp('bulk', 'bulk.file');
    expect(consumer.received.slice(before).map((delivery) => delivery.body.offset)).toEqual([0, 1, 2]);
  });
});

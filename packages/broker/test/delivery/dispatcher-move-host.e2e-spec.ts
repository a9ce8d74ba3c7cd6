import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { TestConsumer } from '../support/test-consumer';
import { addDispatcher, FAST_BACKOFF, publishAll, range } from './delivery.fixture';

/** About 2 s on an idle machine, 20 s beside three busy loops: the waits and the test allow a loaded CI. */
const WAIT_MS = 60_000;

describe('moving a consumer to a new host mid-stream', () => {
  let broker: BrokerApp;
  const oldHost = new TestConsumer();
  const newHost = new TestConsumer();

  afterAll(async () => {
    await broker.close();
    await oldHost.stop();
    await newHost.stop();
  });

  it(
    'loses nothing and duplicates at most the one in-flight message',
    async () => {
      await oldHost.start();
      await newHost.start();
      oldHost.reply = () => ({ ackAfterMs: 15 });
      broker = await startBroker({ delivery: FAST_BACKOFF });
      await addDispatcher(broker, 'billing', oldHost.url, 'order.*');
      await publishAll(
        broker,
        'order.created',
        range(150).map((n) => ({ n })),
      );

      await oldHost.waitFor(() => oldHost.received.length >= 40, { deadlineMs: WAIT_MS, message: '40 pushes to the old host' });
      const moved = await broker.request('PUT', '/mmmq/dispatchers/billing', { host: newHost.url, pattern: 'order.*' });
      expect(moved.status).toBe(200);
      const oldCount = oldHost.received.length;
      await newHost.waitFor(() => newHost.received.some((delivery) => delivery.body.offset === 149), {
        deadlineMs: WAIT_MS,
        message: 'the last message at the new host',
      });
      await oldHost.expectQuiet({ forMs: 200, message: 'no push to the old host after the move' });

      const oldOffsets = oldHost.received.map((delivery) => delivery.body.offset);
      const newOffsets = newHost.received.map((delivery) => delivery.body.offset);
      expect(oldHost.received).toHaveLength(oldCount);
      expect(oldOffsets).toEqual(range(oldOffsets.length));
      const first = newOffsets[0];
      expect([oldOffsets.length - 1, oldOffsets.length]).toContain(first);
      expect(newOffsets).toEqual(range(150 - first, first));
    },
    3 * WAIT_MS,
  );
});

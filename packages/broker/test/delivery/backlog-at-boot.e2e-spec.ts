import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker } from '../http/broker-app.fixture';
import { TestConsumer } from '../support/test-consumer';
import { publishAll, range } from './delivery.fixture';

describe('a backlog present at boot', () => {
  const consumer = new TestConsumer();
  let rootDir: string;

  afterAll(async () => {
    await consumer.stop();
    await rm(rootDir, { recursive: true, force: true });
  });

  it('is delivered without any new publish', async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'mmmq-boot-'));
    await consumer.start();
    const dispatchers = [{ consumerId: 'billing', host: consumer.url, pattern: 'order.*' }];
    consumer.reply = () => ({ status: 503 });
    const first = await startBroker({ persistence: { rootDir }, dispatchers, delivery: { shutdownGraceMs: 0 } });
    await publishAll(
      first,
      'order.created',
      range(10).map((n) => ({ n })),
    );
    await first.close();

    consumer.received.length = 0;
    consumer.reply = () => 'ACK';
    const second = await startBroker({ persistence: { rootDir } });
    try {
      await consumer.waitFor(() => consumer.received.length === 10);
      expect(consumer.contents()).toEqual(range(10).map((n) => ({ n })));
      // The first broker's push of it was refused with 503, which no handler saw: the restart does not count it.
      expect(consumer.received[0].body).toMatchObject({ redelivered: false, deliveryCount: 1 });
    } finally {
      await second.close();
    }
  });
});

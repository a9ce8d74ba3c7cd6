import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { TestConsumer } from '../support/test-consumer';
import { addDispatcher, FAST_BACKOFF, publishAll } from './delivery.fixture';

describe('changing and removing a dispatcher', () => {
  let broker: BrokerApp;
  const consumer = new TestConsumer();
  const checkpoint = (topic: string) => join(broker.rootDir, 'topics', topic, 'checkpoints', 'watcher.checkpoint');

  beforeAll(async () => {
    await consumer.start();
    broker = await startBroker({ delivery: FAST_BACKOFF });
    await addDispatcher(broker, 'watcher', consumer.url, '**');
    await publishAll(broker, 'order.created', [{ n: 0 }]);
    await publishAll(broker, 'payment.done', [{ n: 0 }]);
    await consumer.waitFor(() => consumer.received.length === 2);
  });
  afterAll(async () => {
    await broker.close();
    await consumer.stop();
  });

  it('narrowing drops the checkpoints of topics no longer matched and stops their delivery', async () => {
    await broker.request('PUT', '/mmmq/dispatchers/watcher', { host: consumer.url, pattern: 'order.*' });
    expect(existsSync(checkpoint('payment.done'))).toBe(false);
    expect(existsSync(checkpoint('order.created'))).toBe(true);
    await publishAll(broker, 'payment.done', [{ n: 1 }]);
    await publishAll(broker, 'order.created', [{ n: 1 }]);
    await consumer.waitFor(() => consumer.received.length === 3);
    await consumer.expectQuiet({ forMs: 200, message: 'nothing from payment.done after narrowing to order.*' });
    expect(consumer.received.slice(2).map((delivery) => delivery.body.topic)).toEqual(['order.created']);
  });

  it('widening with startFrom latest skips the backlog of newly matched topics', async () => {
    await broker.request('PUT', '/mmmq/dispatchers/watcher', { host: consumer.url, pattern: '**', startFrom: 'latest' });
    await publishAll(broker, 'payment.done', [{ n: 2 }]);
    await consumer.waitFor(() => consumer.received.length === 4);
    expect(consumer.received[3].body).toMatchObject({ topic: 'payment.done', content: { n: 2 } });
  });

  it('deleting removes the checkpoint in every topic and nothing is delivered any more', async () => {
    expect((await broker.request('DELETE', '/mmmq/dispatchers/watcher')).status).toBe(204);
    expect(existsSync(checkpoint('payment.done'))).toBe(false);
    expect(existsSync(checkpoint('order.created'))).toBe(false);
    await publishAll(broker, 'order.created', [{ n: 3 }]);
    await consumer.expectQuiet({ forMs: 300, message: 'no delivery to a deleted dispatcher' });
    expect(consumer.received).toHaveLength(4);
  });
});

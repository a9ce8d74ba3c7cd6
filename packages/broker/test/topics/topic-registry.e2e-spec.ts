import { TopicRegistry } from '../../src';
import { addDispatcher, publishAll } from '../delivery/delivery.fixture';
import { waitUntil } from '../delivery/pull.fixture';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { TestConsumer } from '../support/test-consumer';

describe('the TopicRegistry', () => {
  let broker: BrokerApp;
  let topics: TopicRegistry;
  const consumer = new TestConsumer();

  beforeAll(async () => {
    await consumer.start();
    broker = await startBroker();
    topics = broker.app.get(TopicRegistry);
  });
  afterAll(async () => {
    await broker.close();
    await consumer.stop();
  });

  it('knows no topic before the first publish', () => {
    expect(topics.list()).toEqual([]);
    expect(topics.get('order.created')).toBeUndefined();
    expect(topics.has('order.created')).toBe(false);
  });

  it('shows each topic with its offsets, size and the consumers reading it', async () => {
    await publishAll(broker, 'order.created', [{ n: 1 }, { n: 2 }, { n: 3 }]);
    await publishAll(broker, 'audit', [{ n: 1 }]);
    consumer.reply = () => 'ACK';
    await addDispatcher(broker, 'billing', consumer.url, 'order.*');
    await consumer.waitFor(() => consumer.received.length === 3);
    await waitUntil(() => topics.get('order.created')?.subscriptions[0]?.position === 3, 'the billing subscription to catch up');

    expect(topics.list().map((topic) => topic.name)).toEqual(['audit', 'order.created']);
    const orders = topics.get('order.created');
    expect(orders).toMatchObject({
      name: 'order.created',
      reserved: false,
      startOffset: 0,
      tailOffset: 3,
      messages: 3,
      segments: 1,
      writable: true,
      subscriptions: [{ topic: 'order.created', consumerId: 'billing', position: 3, tail: 3, lag: 0, state: 'active' }],
    });
    // Each message's stored envelope and frame take more bytes than its content.
    expect(orders?.bytes).toBeGreaterThan(3 * JSON.stringify({ n: 1 }).length);
    expect(topics.get('audit')?.subscriptions).toEqual([]);
    expect(topics.has('audit')).toBe(true);
  });

  it('hands out copies of the counters: changing them changes nothing in the broker', () => {
    const [billing] = topics.get('order.created')?.subscriptions ?? [];
    const delivered = billing.stats.delivered;
    billing.stats.delivered += 1_000;
    billing.stats.lastError = 'made up';

    const [again] = topics.list().find((topic) => topic.name === 'order.created')?.subscriptions ?? [];
    expect(again.stats.delivered).toBe(delivered);
    expect(again.stats.lastError).toBeUndefined();
  });
});

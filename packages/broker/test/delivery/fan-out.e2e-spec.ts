import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { TestConsumer } from '../support/test-consumer';
import { addDispatcher, FAST_BACKOFF, publishAll, range } from './delivery.fixture';

describe('fan-out to three dispatchers', () => {
  let broker: BrokerApp;
  const consumers = { orders: new TestConsumer(), created: new TestConsumer(), all: new TestConsumer() };

  beforeAll(async () => {
    for (const consumer of Object.values(consumers)) await consumer.start();
    broker = await startBroker({ delivery: FAST_BACKOFF });
    await publishAll(
      broker,
      'order.created',
      range(5).map((n) => ({ n })),
    );
    await addDispatcher(broker, 'orders', consumers.orders.url, 'order.*');
    await addDispatcher(broker, 'created', consumers.created.url, 'order.created');
    await addDispatcher(broker, 'all', consumers.all.url, '**');
  });
  afterAll(async () => {
    await broker.close();
    for (const consumer of Object.values(consumers)) await consumer.stop();
  });

  it('delivers every matching topic to each dispatcher, in order per topic, including topics created later', async () => {
    await publishAll(
      broker,
      'order.cancelled',
      range(5).map((n) => ({ n })),
    );
    await publishAll(
      broker,
      'payment.done',
      range(5).map((n) => ({ n })),
    );
    await publishAll(
      broker,
      'order.created',
      range(5, 5).map((n) => ({ n })),
    );

    await consumers.orders.waitFor(() => consumers.orders.received.length === 15);
    await consumers.created.waitFor(() => consumers.created.received.length === 10);
    await consumers.all.waitFor(() => consumers.all.received.length === 20);
    await Promise.all(
      Object.values(consumers).map((consumer) => consumer.expectQuiet({ forMs: 200, message: 'no delivery beyond the matched messages' })),
    );

    const byTopic = (consumer: TestConsumer) => {
      const topics: Record<string, number[]> = {};
      for (const { body } of consumer.received) (topics[body.topic] ??= []).push((body.content as { n: number }).n);
      return topics;
    };
    expect(byTopic(consumers.orders)).toEqual({ 'order.created': range(10), 'order.cancelled': range(5) });
    expect(byTopic(consumers.created)).toEqual({ 'order.created': range(10) });
    expect(byTopic(consumers.all)).toEqual({
      'order.created': range(10),
      'order.cancelled': range(5),
      'payment.done': range(5),
    });
    expect(new Set(consumers.all.received.map((delivery) => delivery.consumerId))).toEqual(new Set(['all']));
  });
});

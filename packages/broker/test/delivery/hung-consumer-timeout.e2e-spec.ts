import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { TestConsumer } from '../support/test-consumer';
import { addDispatcher, publishAll, range } from './delivery.fixture';

describe('a hung consumer', () => {
  let broker: BrokerApp;
  const consumer = new TestConsumer();

  afterAll(async () => {
    await broker.close();
    await consumer.stop();
  });

  it('times out, and delivery resumes in order once the consumer answers again', async () => {
    await consumer.start();
    let hanging = true;
    consumer.reply = () => (hanging ? 'hang' : 'ACK');
    broker = await startBroker({ delivery: { timeoutMs: 500, backoff: { initialMs: 100, maxMs: 200 } } });
    await addDispatcher(broker, 'billing', consumer.url, 'order.*');
    await publishAll(
      broker,
      'order.created',
      range(3).map((n) => ({ n })),
    );

    await consumer.waitFor(() => consumer.received.length >= 2);
    const [subscription] = (await broker.request('GET', '/mmmq/subscriptions')).body;
    expect(subscription).toMatchObject({ topic: 'order.created', consumerId: 'billing', position: 0, lag: 3 });
    expect(subscription.stats.lastError).toMatch(/no reply within 500 ms/);

    hanging = false;
    await consumer.waitFor(() => consumer.received.some((delivery) => (delivery.body.content as { n: number }).n === 2));
    const acked = consumer.received.filter((delivery) => delivery.body.deliveryCount > 1 || delivery.body.offset > 0);
    expect(acked.map((delivery) => delivery.body.offset).filter((offset, i, all) => all.indexOf(offset) === i)).toEqual([0, 1, 2]);
  });
});

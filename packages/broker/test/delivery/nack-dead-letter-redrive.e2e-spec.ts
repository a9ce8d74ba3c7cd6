import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { TestConsumer } from '../support/test-consumer';
import { addDispatcher, FAST_BACKOFF, publishAll, range } from './delivery.fixture';
import { waitUntil } from './pull.fixture';

describe('a consumer that always NACKs one message', () => {
  let broker: BrokerApp;
  const consumer = new TestConsumer();
  const isPoison = (content: unknown) => (content as { n: number }).n === 2;
  let healed = false;

  beforeAll(async () => {
    await consumer.start();
    consumer.reply = (delivery) => (isPoison(delivery.body.content) && !healed ? 'NACK' : 'ACK');
    broker = await startBroker({ delivery: FAST_BACKOFF });
    await addDispatcher(broker, 'billing', consumer.url, 'order.*');
  });
  afterAll(async () => {
    await broker.close();
    await consumer.stop();
  });

  it('is tried 4 times, dead-lettered with its headers, the next messages flow, and redrive delivers it again', async () => {
    await publishAll(
      broker,
      'order.created',
      range(5).map((n) => ({ n })),
    );
    await consumer.waitFor(() => consumer.received.filter((d) => !isPoison(d.body.content)).length === 4);

    const poison = consumer.received.filter((delivery) => isPoison(delivery.body.content));
    expect(poison.map((delivery) => delivery.body.deliveryCount)).toEqual([1, 2, 3, 4]);
    expect(new Set(poison.map((delivery) => delivery.body.id)).size).toBe(1);
    expect(consumer.contents()).toEqual([0, 1, 2, 2, 2, 2, 3, 4].map((n) => ({ n })));

    // The next messages flow while the dead letter is written; the cursor passes it once that is durable.
    await waitUntil(async () => (await broker.request('GET', '/mmmq/dead-letters/billing')).body.total === 1, 'the dead letter');
    const listed = await broker.request('GET', '/mmmq/dead-letters/billing');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ consumerId: 'billing', total: 1, nextFrom: 1 });
    const [letter] = listed.body.deadLetters;
    expect(letter).toMatchObject({
      offset: 0,
      id: poison[0].body.id,
      topic: 'order.created',
      content: { n: 2 },
      headers: {
        'mmmq-dlq-original-topic': 'order.created',
        'mmmq-dlq-original-offset': 2,
        'mmmq-dlq-attempts': 4,
        'mmmq-dlq-reason': 'NACK',
        'mmmq-dlq-consumer-id': 'billing',
      },
    });
    expect(Date.parse(letter.headers['mmmq-dlq-failed-at'])).not.toBeNaN();

    healed = true;
    const redriven = await broker.request('POST', '/mmmq/dead-letters/billing/redrive', { ids: [letter.id] });
    expect(redriven).toMatchObject({ status: 200, body: { redriven: 1 } });
    await consumer.waitFor(() => consumer.received.length === 9);
    const again = consumer.received[8].body;
    expect(again).toMatchObject({ id: letter.id, topic: 'order.created', content: { n: 2 } });
    expect(again.headers['mmmq-dlq-attempts']).toBe(4);
  });

  it('answers 404 for dead letters and redrive of an unknown consumer', async () => {
    expect((await broker.request('GET', '/mmmq/dead-letters/nobody')).status).toBe(404);
    expect((await broker.request('POST', '/mmmq/dead-letters/nobody/redrive', {})).status).toBe(404);
    expect((await broker.request('GET', '/mmmq/dead-letters/billing?limit=0')).status).toBe(400);
  });
});

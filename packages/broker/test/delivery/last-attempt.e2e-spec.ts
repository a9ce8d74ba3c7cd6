import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { TestConsumer } from '../support/test-consumer';
import { FAST_BACKOFF, publishAll } from './delivery.fixture';
import { PullClient, waitUntil } from './pull.fixture';

/** `[deliveryCount, lastAttempt]` of every push of the message `n`. */
function attemptsOf(consumer: TestConsumer, n: number): Array<[number, unknown]> {
  return consumer.received
    .filter((pushed) => (pushed.body.content as { n: number }).n === n)
    .map((pushed) => [pushed.body.deliveryCount, (pushed.body as { lastAttempt?: boolean }).lastAttempt]);
}

describe('lastAttempt on deliveries', () => {
  let broker: BrokerApp;
  let consumer: TestConsumer;

  beforeEach(() => {
    consumer = new TestConsumer();
  });
  afterEach(async () => {
    await broker.close();
    await consumer.stop().catch(() => undefined);
  });

  const register = async (settings: Record<string, unknown>) => {
    const response = await broker.request('POST', '/mmmq/dispatchers', {
      consumerId: 'billing',
      host: consumer.url,
      pattern: 'order.*',
      ...settings,
    });
    expect(response.status).toBe(201);
  };
  const deadLettered = () => waitUntil(() => (broker.topics.get('__dlq.billing')?.tailOffset ?? 0) > 0, 'the dead letter');

  it('is true on the push whose NACK uses up the NACK retries (maxNackRetries 3: the 4th), false before', async () => {
    broker = await startBroker({ delivery: FAST_BACKOFF });
    await consumer.start();
    consumer.reply = () => 'NACK';
    await register({ maxDeliveries: -1 });
    await publishAll(broker, 'order.created', [{ n: 0 }]);
    await deadLettered();
    expect(attemptsOf(consumer, 0)).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, true],
    ]);
  });

  it('is true on delivery number maxDeliveries, whatever fails it (here HTTP 500)', async () => {
    broker = await startBroker({ delivery: FAST_BACKOFF });
    await consumer.start();
    consumer.reply = (pushed) => ((pushed.body.content as { n: number }).n === 0 ? { status: 500 } : 'ACK');
    await register({ maxDeliveries: 2, batchSize: 1 });
    await publishAll(broker, 'order.created', [{ n: 0 }, { n: 1 }]);
    await deadLettered();
    await consumer.waitFor(() => attemptsOf(consumer, 1).length === 1);
    expect(attemptsOf(consumer, 0)).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(attemptsOf(consumer, 1)).toEqual([[1, false]]);
  });

  it('is carried in batched pushes, per message', async () => {
    broker = await startBroker({ delivery: FAST_BACKOFF });
    await consumer.start();
    consumer.reply = (pushed) => ((pushed.body.content as { n: number }).n === 0 ? 'NACK' : 'ACK');
    await register({ maxDeliveries: 1, batchSize: 10 });
    await publishAll(broker, 'order.created', [{ n: 0 }]);
    await deadLettered();
    expect(attemptsOf(consumer, 0)).toEqual([[1, true]]);
  });

  it('is set on fetched messages: false while a NACK redelivers, true on delivery number maxDeliveries', async () => {
    broker = await startBroker();
    const puller = new PullClient(broker, 'billing');
    await puller.register({ maxDeliveries: 2 });
    await publishAll(broker, 'order.created', [{ n: 0 }]);
    const [first] = await puller.fetch({ waitMs: 5000 });
    expect(first).toMatchObject({ deliveryCount: 1, lastAttempt: false });
    await puller.nack([first.lease]);
    const [second] = await puller.fetch({ waitMs: 5000 });
    expect(second).toMatchObject({ deliveryCount: 2, lastAttempt: true });
  });
});

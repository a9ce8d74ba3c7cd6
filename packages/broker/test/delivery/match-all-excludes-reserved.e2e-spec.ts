import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { TestConsumer } from '../support/test-consumer';
import { addDispatcher, FAST_BACKOFF, publishAll } from './delivery.fixture';

describe('reserved dead-letter topics', () => {
  let broker: BrokerApp;
  const everything = new TestConsumer();
  const auditor = new TestConsumer();
  const failing = new TestConsumer();

  beforeAll(async () => {
    for (const consumer of [everything, auditor, failing]) await consumer.start();
    failing.reply = () => 'NACK';
    broker = await startBroker({ delivery: FAST_BACKOFF });
    await addDispatcher(broker, 'failing', failing.url, 'order.*');
    await addDispatcher(broker, 'everything', everything.url, '**');
    await addDispatcher(broker, 'auditor', auditor.url, '__dlq.*');
  });
  afterAll(async () => {
    await broker.close();
    for (const consumer of [everything, auditor, failing]) await consumer.stop();
  });

  it('reach only a dispatcher whose pattern names them, never a ** dispatcher', async () => {
    await publishAll(broker, 'order.created', [{ n: 1 }]);
    await auditor.waitFor(() => auditor.received.length === 1);
    await everything.waitFor(() => everything.received.length === 1);
    await Promise.all([
      everything.expectQuiet({ forMs: 300, message: 'no dead letter reaching the ** dispatcher' }),
      auditor.expectQuiet({ forMs: 300, message: 'a single dead letter for the auditor' }),
    ]);
    expect(auditor.received[0].body.headers['mmmq-dlq-consumer-id']).toBe('failing');
    expect(everything.received.map((delivery) => delivery.body.topic)).toEqual(['order.created']);
  });
});

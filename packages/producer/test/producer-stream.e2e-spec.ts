import { ProduceError } from '../src';
import { BrokerApp, startBroker } from './support/broker-app';
import { ProducerApp, startProducer } from './support/producer-app';

describe('producing over the publish stream (mmmq://)', () => {
  let broker: BrokerApp;
  const apps: ProducerApp[] = [];
  const start = async (options: Parameters<typeof startProducer>[0]) => {
    const app = await startProducer(options);
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(() => broker.close());

  it('keeps several batches in flight and stores concurrent messages in call order, each with its own offset', async () => {
    const app = await start({ broker: broker.streamUrl, batching: { maxMessages: 10, maxInFlight: 8 } });
    const count = 1000;
    const published = await Promise.all(Array.from({ length: count }, (_, n) => app.producer.produce('order.created', { n })));
    expect(published.map((message) => message.offset)).toEqual(Array.from({ length: count }, (_, n) => n));
    const stored = await broker.stored('order.created');
    expect(stored.map((message) => JSON.parse(message.content).n)).toEqual(Array.from({ length: count }, (_, n) => n));
    expect(stored.map((message) => message.id)).toEqual(published.map((message) => message.id));
  });

  it('publishes a lone message and an explicit batch', async () => {
    const app = await start({ broker: broker.streamUrl });
    const one = await app.producer.produce('invoice.sent', { n: 0 }, { headers: { source: 'test' } });
    expect(one).toEqual({ id: expect.any(String), topic: 'invoice.sent', offset: 0, deliveryMode: 'persistent' });
    const batch = await app.producer.produceBatch([1, 2].map((n) => ({ topic: 'invoice.sent', content: { n } })));
    expect(batch.map((message) => message.offset)).toEqual([1, 2]);
    expect((await broker.stored('invoice.sent'))[0].headers).toEqual({ source: 'test' });
  });

  it('does not retry what the broker refused as invalid', async () => {
    const app = await start({ broker: broker.streamUrl, maxRetryCount: 3, retryDelayMs: 1 });
    await app.producer.produce('audit.log', 1);
    const error = await app.producer.produce('Audit.Log', 2).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProduceError);
    expect((error as Error).message).toMatch(/refused by the broker with 409: .*only in case.*not retried/);
  });

  it('rejects with ProduceError after its retries when nothing listens', async () => {
    const app = await start({ broker: 'mmmq://127.0.0.1:1', maxRetryCount: 1, retryDelayMs: 1 });
    const error = await app.producer.produce('order.created', 1).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProduceError);
    expect((error as Error).message).toMatch(/after 2 attempts: .*ECONNREFUSED/);
  });
});

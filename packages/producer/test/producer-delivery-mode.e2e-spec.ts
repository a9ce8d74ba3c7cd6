import { InvalidMessageError } from '@mmmq/core';
import { BrokerApp, startBroker } from './support/broker-app';
import { ProducerApp, startProducer } from './support/producer-app';

describe('producing with a delivery mode, against the real broker', () => {
  let broker: BrokerApp;
  const apps: ProducerApp[] = [];
  const start = async (options: Parameters<typeof startProducer>[0]) => {
    const app = await startProducer(options);
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    broker = await startBroker({ topics: { overrides: [{ pattern: 'metrics.*', deliveryMode: 'nonPersistent' }] } });
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(() => broker.close());

  it.each(['http', 'stream'] as const)(
    'over %s: resolves a nonPersistent produce() without an offset, and stores it',
    async (transport) => {
      const app = await start({ broker: transport === 'http' ? broker.url : broker.streamUrl });
      const topic = `order.${transport}`;
      const published = await app.producer.produce(topic, { n: 1 }, { id: `np-${transport}`, deliveryMode: 'nonPersistent' });
      expect(published).toEqual({ id: `np-${transport}`, topic, deliveryMode: 'nonPersistent' });
      const persistent = await app.producer.produce(topic, { n: 2 });
      expect(persistent).toMatchObject({ offset: 1, deliveryMode: 'persistent' });
      expect((await broker.stored(topic)).map((message) => message.id)).toEqual([`np-${transport}`, persistent.id]);
    },
  );

  it("gets the topic's default mode when the message names none, and its own when it does", async () => {
    const app = await start({ broker: broker.url });
    expect(await app.producer.produce('metrics.cpu', 0.5)).toMatchObject({ deliveryMode: 'nonPersistent' });
    expect(await app.producer.produce('metrics.cpu', 0.6, { deliveryMode: 'persistent' })).toMatchObject({ deliveryMode: 'persistent' });
  });

  it('keeps call order with batching over the stream, several batches in flight, all nonPersistent', async () => {
    const app = await start({ broker: broker.streamUrl, batching: { maxMessages: 10, maxInFlight: 8 } });
    const count = 500;
    const published = await Promise.all(
      Array.from({ length: count }, (_, n) => app.producer.produce('audit.np', { n }, { deliveryMode: 'nonPersistent' })),
    );
    expect(new Set(published.map((message) => message.deliveryMode))).toEqual(new Set(['nonPersistent']));
    await broker.topics.journal.drain();
    const stored = await broker.stored('audit.np');
    expect(stored.map((message) => JSON.parse(message.content).n)).toEqual(Array.from({ length: count }, (_, n) => n));
  });

  it('makes a batch or a transaction persistent when any of its messages is, nonPersistent when all are', async () => {
    const app = await start({ broker: broker.url });
    const mixed = await app.producer.produceBatch([
      { topic: 'invoice.sent', content: 1, deliveryMode: 'nonPersistent' },
      { topic: 'invoice.sent', content: 2 },
    ]);
    expect(mixed.map(({ offset, deliveryMode }) => ({ offset, deliveryMode }))).toEqual([
      { offset: 0, deliveryMode: 'persistent' },
      { offset: 1, deliveryMode: 'persistent' },
    ]);
    const { published } = await app.producer.transaction((tx) => {
      tx.produce('invoice.sent', 3, { deliveryMode: 'nonPersistent' });
      tx.produce('metrics.cpu', 4);
    });
    expect(published.map((message) => message.deliveryMode)).toEqual(['nonPersistent', 'nonPersistent']);
    expect(published.every((message) => message.offset === undefined)).toBe(true);
  });

  it('refuses an unknown delivery mode before sending anything', async () => {
    const app = await start({ broker: broker.url });
    const refused = app.producer.produce('order.created', 1, { deliveryMode: 'fast' as never });
    await expect(refused).rejects.toBeInstanceOf(InvalidMessageError);
    await expect(refused).rejects.toThrow(/"deliveryMode" must be one of persistent, nonPersistent/);
    expect(await broker.stored('order.created')).toEqual([]);
  });
});

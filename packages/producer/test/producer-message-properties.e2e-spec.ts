import { InvalidMessageError } from '@mmmq/core';
import { BrokerApp, startBroker } from './support/broker-app';
import { ProducerApp, startProducer } from './support/producer-app';

describe('ttlMs, expiresAt and priority from the producer to the stored message', () => {
  let broker: BrokerApp;
  const apps: ProducerApp[] = [];

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(() => broker.close());

  it.each([
    ['HTTP', () => broker.url],
    ['the publish stream', () => broker.streamUrl],
  ])('sends them over %s for produce, produceBatch and a transaction', async (via, url) => {
    const app = await startProducer({ broker: url(), retryDelayMs: 1 });
    apps.push(app);
    const topic = `props.${via === 'HTTP' ? 'http' : 'stream'}`;
    const before = Date.now();
    await app.producer.produce(topic, 'one', { ttlMs: 60_000, priority: 9 });
    await app.producer.produceBatch([
      { topic, content: 'two', expiresAt: 4_000_000_000_000 },
      { topic, content: 'three', priority: 0 },
    ]);
    await app.producer.transaction((tx) => {
      tx.produce(topic, 'four', { priority: 7, ttlMs: 1000 });
    });
    const stored = await broker.stored(topic);
    expect(stored.map(({ content, priority }) => [JSON.parse(content), priority])).toEqual([
      ['one', 9],
      ['two', undefined],
      ['three', 0],
      ['four', 7],
    ]);
    expect(stored[0].expiresAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(stored[0].expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(stored[1].expiresAt).toBe(4_000_000_000_000);
    expect(stored[2]).not.toHaveProperty('expiresAt');
    expect(stored[3].expiresAt).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('refuses invalid values before sending anything, naming the field', async () => {
    const app = await startProducer({ broker: broker.url, retryDelayMs: 1 });
    apps.push(app);
    await expect(app.producer.produce('props.bad', 1, { priority: 12 })).rejects.toThrow(InvalidMessageError);
    await expect(app.producer.produce('props.bad', 1, { ttlMs: 5, expiresAt: 5 })).rejects.toThrow(/"ttlMs" and "expiresAt"/);
    await expect(app.producer.produceBatch([{ topic: 'props.bad', content: 1, ttlMs: -1 }])).rejects.toThrow(/^messages\[0\]: .*"ttlMs"/);
    await expect(app.producer.transaction((tx) => tx.produce('props.bad', 1, { priority: 1.5 }))).rejects.toThrow(/"priority"/);
    expect(await broker.stored('props.bad')).toEqual([]);
  });
});

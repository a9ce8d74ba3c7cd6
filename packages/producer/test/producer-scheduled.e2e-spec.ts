import { InvalidMessageError } from '@mmmq/core';
import { BrokerApp, startBroker } from './support/broker-app';
import { ProducerApp, startProducer } from './support/producer-app';

/** Far enough ahead that nothing is delivered while the test runs: only what is stored is checked here. */
const DELAY_MS = 600_000;

describe('delayMs and deliverAt from the producer to the stored message', () => {
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
    const topic = `sched.${via === 'HTTP' ? 'http' : 'stream'}`;
    const at = new Date(Date.now() + DELAY_MS);
    const before = Date.now();
    await app.producer.produce(topic, 'one', { delayMs: DELAY_MS });
    await app.producer.produceBatch([
      { topic, content: 'two', deliverAt: at },
      { topic, content: 'three', deliverAt: at.toISOString() },
      { topic, content: 'four' },
    ]);
    await app.producer.transaction((tx) => {
      tx.produce(topic, 'five', { delayMs: DELAY_MS, ttlMs: 1000 });
    });
    const stored = await broker.stored(topic);
    expect(stored.map(({ content }) => JSON.parse(content))).toEqual(['one', 'two', 'three', 'four', 'five']);
    expect(stored[0].dueAt).toBeGreaterThanOrEqual(before + DELAY_MS);
    expect(stored[0].dueAt).toBeLessThanOrEqual(Date.now() + DELAY_MS);
    expect([stored[1].dueAt, stored[2].dueAt]).toEqual([at.getTime(), at.getTime()]);
    expect(stored[3]).not.toHaveProperty('dueAt');
    // A time to live counts from the due time.
    expect(stored[4].expiresAt).toBe(stored[4].dueAt! + 1000);
  });

  it('refuses invalid values before sending anything, naming the field', async () => {
    const app = await startProducer({ broker: broker.url, retryDelayMs: 1 });
    apps.push(app);
    await expect(app.producer.produce('sched.bad', 1, { delayMs: -5 })).rejects.toThrow(InvalidMessageError);
    await expect(app.producer.produce('sched.bad', 1, { delayMs: 5, deliverAt: new Date() })).rejects.toThrow(/"delayMs" and "deliverAt"/);
    await expect(app.producer.produceBatch([{ topic: 'sched.bad', content: 1, deliverAt: 'soon' }])).rejects.toThrow(
      /^messages\[0\]: .*"deliverAt"/,
    );
    // Past the broker's limits.maxDelayMs (90 days): refused by the broker with a 400, not retried.
    await expect(app.producer.produce('sched.bad', 1, { delayMs: 100 * 24 * 3600 * 1000 })).rejects.toThrow(/limits\.maxDelayMs/);
    expect(await broker.stored('sched.bad')).toEqual([]);
  });
});

import { BrokerApp, startBroker } from './support/broker-app';
import { CuttingProxy, startCuttingProxy } from './support/cutting-proxy';
import { ProducerApp, startProducer } from './support/producer-app';

describe('a publish stream lost with batches in flight', () => {
  let broker: BrokerApp;
  let proxy: CuttingProxy;
  let app: ProducerApp;

  beforeAll(async () => {
    broker = await startBroker();
    // Cut in the middle of the pipelined batches: some reached the broker, some did not.
    proxy = await startCuttingProxy(Number(new URL(broker.streamUrl).port), 20_000);
    app = await startProducer({ broker: proxy.url, retryDelayMs: 50, batching: { maxMessages: 20, maxInFlight: 8 } });
  });
  afterAll(async () => {
    await app.close();
    await proxy.close();
    await broker.close();
  });

  it('resends on a new connection: every message stored, first copies in call order, each call resolved', async () => {
    const count = 600;
    const published = await Promise.all(Array.from({ length: count }, (_, n) => app.producer.produce('order.created', { n })));
    expect(proxy.connections()).toBeGreaterThan(1);
    const stored = (await broker.stored('order.created')).map((message) => JSON.parse(message.content).n as number);
    const firstCopies = stored.filter((n, at) => stored.indexOf(n) === at);
    expect(firstCopies).toEqual(Array.from({ length: count }, (_, n) => n));
    // Each call resolves with where a copy of its message is.
    for (const [n, message] of published.entries()) expect(stored[message.offset as number]).toBe(n);
    expect(app.logger.warnings.some((warning) => /retrying in \d+ ms with the same ids/.test(warning))).toBe(true);
  });
});

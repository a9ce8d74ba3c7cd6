import { ProduceError } from '../src';
import { BrokerApp, startBroker } from './support/broker-app';
import { ProducerApp, startProducer } from './support/producer-app';

const TOKEN = 'orders-publisher-0123456789';
const AUTH = { tokens: [{ token: TOKEN, roles: ['publish' as const], topics: ['order.*'], name: 'orders' }] };

describe('a producer with a token publishes to a broker that requires one', () => {
  let broker: BrokerApp;
  const apps: ProducerApp[] = [];
  const start = async (options: Parameters<typeof startProducer>[0]) => {
    const app = await startProducer({ maxRetryCount: 2, retryDelayMs: 1, ...options });
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    broker = await startBroker({ auth: AUTH });
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(() => broker.close());

  it.each(['http', 'stream'] as const)('over %s, with its token, within its topics', async (transport) => {
    const url = transport === 'http' ? broker.url : broker.streamUrl;
    const app = await start({ broker: url, token: TOKEN });
    const topic = `order.${transport}`;
    await app.producer.produce(topic, { n: 1 });
    await app.producer.produceBatch([2, 3].map((n) => ({ topic, content: { n } })));
    expect((await broker.stored(topic)).map((message) => JSON.parse(message.content).n)).toEqual([1, 2, 3]);
  });

  it.each(['http', 'stream'] as const)('over %s, fails without retrying when its token is missing or wrong', async (transport) => {
    const url = transport === 'http' ? broker.url : broker.streamUrl;
    for (const token of [undefined, 'not-the-token-0123456789']) {
      const app = await start({ broker: url, token });
      const error = await app.producer.produce('order.created', 1).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProduceError);
      expect((error as Error).message).toMatch(/refused by the broker with 401: .*(requires a token|not valid).*not retried/);
      expect((error as Error).message).not.toContain(TOKEN);
    }
    expect(await broker.stored('order.created')).toEqual([]);
  });

  it.each(['http', 'stream'] as const)('over %s, fails with 403 for a topic outside the token patterns', async (transport) => {
    const url = transport === 'http' ? broker.url : broker.streamUrl;
    const app = await start({ broker: url, token: TOKEN });
    const error = await app.producer.produce('audit.log', 1).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/refused by the broker with 403: The token orders may not publish to audit\.log/);
    // The connection stays usable.
    await expect(app.producer.produce(`order.after-${transport}`, 1)).resolves.toMatchObject({ offset: 0 });
  });
});

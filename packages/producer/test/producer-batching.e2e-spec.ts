import { ProduceError } from '../src';
import { BrokerApp, startBroker } from './support/broker-app';
import { ProducerApp, startProducer } from './support/producer-app';
import { nack, ScriptedBroker, startScriptedBroker } from './support/scripted-broker';

describe('automatic batching of concurrent produce() calls', () => {
  let broker: BrokerApp;
  let scripted: ScriptedBroker | undefined;
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
    await scripted?.close();
    scripted = undefined;
  });
  afterAll(() => broker.close());

  it('sends many concurrent messages in few requests, stored in call order, each resolving with its own offset', async () => {
    scripted = await startScriptedBroker(['proxy'], broker.url);
    const app = await start({ broker: scripted.url, batching: { maxMessages: 100 } });
    const published = await Promise.all(Array.from({ length: 300 }, (_, n) => app.producer.produce('order.created', { n })));
    expect(published.map((message) => message.offset)).toEqual(Array.from({ length: 300 }, (_, n) => n));
    expect(scripted.requests.length).toBeLessThan(10);
    expect(scripted.requests.every((request) => request.ids.length <= 100)).toBe(true);
    const stored = await broker.stored('order.created');
    expect(stored.map((message) => JSON.parse(message.content).n)).toEqual(Array.from({ length: 300 }, (_, n) => n));
    expect(stored.map((message) => message.id)).toEqual(published.map((message) => message.id));
  });

  it('sends the messages produced in one turn of the event loop together, as full batches', async () => {
    scripted = await startScriptedBroker(['proxy'], broker.url);
    const app = await start({ broker: scripted.url, batching: { maxMessages: 100 } });
    await Promise.all(Array.from({ length: 250 }, (_, n) => app.producer.produce('order.batched', { n })));
    expect(scripted.requests.map((request) => request.ids.length)).toEqual([100, 100, 50]);
  });

  it('sends a lone message on its own, at once, to the single endpoint', async () => {
    scripted = await startScriptedBroker(['ack']);
    const app = await start({ broker: scripted.url });
    await app.producer.produce('order.created', { n: 1 });
    expect(scripted.requests.map((request) => request.path)).toEqual(['/mmmq/messages']);
  });

  it('retries a failed batch whole with the same ids, and rejects every caller when it gives up', async () => {
    scripted = await startScriptedBroker([nack()]);
    const app = await start({ broker: scripted.url, maxRetryCount: 1, retryDelayMs: 1 });
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, n) => app.producer.produce('t', n)));
    expect(results.every((result) => result.status === 'rejected' && result.reason instanceof ProduceError)).toBe(true);
    const batches = scripted.requests.filter((request) => request.ids.length > 1);
    expect(batches.length).toBe(2);
    expect(batches[1].ids).toEqual(batches[0].ids);
  });

  it('sends one request per message with batching: false', async () => {
    scripted = await startScriptedBroker(['ack']);
    const app = await start({ broker: scripted.url, batching: false });
    await Promise.all(Array.from({ length: 5 }, (_, n) => app.producer.produce('t', n)));
    expect(scripted.requests).toHaveLength(5);
  });
});

import { freePort } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { TestConsumer } from '../support/test-consumer';
import { publishAll } from './delivery.fixture';
import { waitUntil } from './pull.fixture';

/** The first retry waits 24–30 s: far beyond what the test allows for delivery after the consumer is back. */
const LONG_BACKOFF = { backoff: { initialMs: 30_000, maxMs: 60_000 } };
/** How long delivery may take once the consumer registers again. */
const RESUME_DEADLINE_MS = 5_000;

describe('a consumer registering again after an outage', () => {
  let broker: BrokerApp;
  let consumer: TestConsumer;

  beforeEach(() => {
    consumer = new TestConsumer();
  });

  afterEach(async () => {
    await broker.close();
    await consumer.stop().catch(() => undefined);
  });

  const definition = (port: number) => ({ consumerId: 'billing', host: `http://127.0.0.1:${port}`, pattern: 'order.*' });

  const failedOnce = () =>
    waitUntil(async () => (await broker.request('GET', '/mmmq/subscriptions')).body[0]?.stats.failures >= 1, 'a failed push');

  it('ends the broker’s retry wait for its host (POST with the same settings): delivery resumes at once', async () => {
    broker = await startBroker({ delivery: LONG_BACKOFF });
    const port = await freePort();
    expect((await broker.request('POST', '/mmmq/dispatchers', definition(port))).status).toBe(201);
    await publishAll(broker, 'order.created', [{ n: 0 }, { n: 1 }]);
    await failedOnce();

    await consumer.start(port);
    const registeredAt = Date.now();
    expect((await broker.request('POST', '/mmmq/dispatchers', definition(port))).status).toBe(200);

    await consumer.waitFor(() => consumer.received.length >= 2, RESUME_DEADLINE_MS);
    expect(Date.now() - registeredAt).toBeLessThan(RESUME_DEADLINE_MS);
    expect(consumer.contents()).toEqual([{ n: 0 }, { n: 1 }]);
  });

  it('ends it for a host added back after it was removed (DELETE, then POST)', async () => {
    broker = await startBroker({ delivery: LONG_BACKOFF });
    const port = await freePort();
    expect((await broker.request('POST', '/mmmq/dispatchers', definition(port))).status).toBe(201);
    await publishAll(broker, 'order.created', [{ n: 0 }]);
    await failedOnce();
    const host = encodeURIComponent(`http://127.0.0.1:${port}`);
    expect((await broker.request('DELETE', `/mmmq/dispatchers/billing/hosts/${host}`)).status).toBe(204);

    await consumer.start(port);
    expect((await broker.request('POST', '/mmmq/dispatchers', definition(port))).status).toBe(200);
    await consumer.waitFor(() => consumer.received.length >= 1, RESUME_DEADLINE_MS);
    expect(consumer.contents()).toEqual([{ n: 0 }]);
  });
});

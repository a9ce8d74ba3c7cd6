import { waitFor } from '@mmmq/test-support';
import { BrokerApp, startBroker } from './support/broker-app';
import { ProducerApp, startProducer } from './support/producer-app';

/** The broker's `Retry-After` for a full backlog, which the producer waits (within `maxRetryDelayMs`). */
const RETRY_AFTER_MS = 1000;

/**
 * A consumer whose dispatcher has `maxBacklog` with `backlogOverflow: 'reject'` makes the broker answer 429 while it
 * is behind; the real producer, over both transports, retries with the same id until it has caught up, and the
 * message is stored once.
 */
describe.each([
  ['HTTP', (broker: BrokerApp) => broker.url],
  ['the publish stream', (broker: BrokerApp) => broker.streamUrl],
])('a producer over %s refused for a consumer’s full backlog', (transport, urlOf) => {
  let broker: BrokerApp;
  let app: ProducerApp;
  const consumerId = transport === 'HTTP' ? 'behind-http' : 'behind-stream';
  const topic = `backlog.${consumerId}`;

  beforeAll(async () => {
    broker = await startBroker();
    app = await startProducer({ broker: urlOf(broker), retryDelayMs: 10, maxRetryDelayMs: 2 * RETRY_AFTER_MS, maxRetryCount: 50 });
  });
  afterAll(async () => {
    await app.close();
    await broker.close();
  });

  async function fetchAndAck(): Promise<void> {
    const fetched = await broker.request('POST', `/mmmq/consumers/${consumerId}/fetch`, { max: 1 });
    const [message] = fetched.body.messages;
    const acked = await broker.request('POST', `/mmmq/consumers/${consumerId}/ack`, { leases: [message.lease] });
    if (acked.status !== 200) throw new Error(`ack: ${acked.status} ${JSON.stringify(acked.body)}`);
  }

  it('backs off as Retry-After says, retries with the same id until the consumer catches up, and is stored once', async () => {
    const registered = await broker.request('POST', '/mmmq/dispatchers', { consumerId, pattern: topic, maxBacklog: 2 });
    expect(registered.status).toBe(201);
    await app.producer.produce(topic, { n: 0 }, { id: 'order-0' });
    await app.producer.produce(topic, { n: 1 }, { id: 'order-1' });
    await waitFor(async () => (await broker.subscription(consumerId, topic)) !== undefined, { message: 'the subscription' });

    const published = app.producer.produce(topic, { n: 2 }, { id: 'order-2' });
    await waitFor(() => app.logger.warnings.filter((warning) => warning.includes('maxBacklog is 2')).length >= 2, {
      message: () => `two refused attempts, logged as retries; warnings: ${app.logger.warnings.join(' | ')}`,
    });
    const retries = app.logger.warnings.filter((warning) => warning.includes('maxBacklog is 2'));
    for (const warning of retries) expect(warning).toMatch(new RegExp(`429.*retrying in ${RETRY_AFTER_MS} ms with the same id`));
    expect(await broker.stored(topic)).toHaveLength(2);

    await fetchAndAck();
    await expect(published).resolves.toEqual({ id: 'order-2', topic, offset: 2, deliveryMode: 'persistent' });
    const stored = await broker.stored(topic);
    expect(stored.map(({ id, content }) => ({ id, content }))).toEqual([
      { id: 'order-0', content: '{"n":0}' },
      { id: 'order-1', content: '{"n":1}' },
      { id: 'order-2', content: '{"n":2}' },
    ]);
  });

  it('keeps call order across the refusals: publishes sent after a refused one never land before it', async () => {
    const orderedTopic = `${topic}.ordered`;
    const ordered = `${consumerId}-ordered`;
    await broker.request('POST', '/mmmq/dispatchers', { consumerId: ordered, pattern: orderedTopic, maxBacklog: 2 });
    await app.producer.produce(orderedTopic, 0, { id: 'n-0' });
    await app.producer.produce(orderedTopic, 1, { id: 'n-1' });
    await waitFor(async () => (await broker.subscription(ordered, orderedTopic)) !== undefined, { message: 'the subscription' });
    const warningsBefore = app.logger.warnings.length;

    const refused = app.producer.produce(orderedTopic, 2, { id: 'n-2' });
    await waitFor(() => app.logger.warnings.slice(warningsBefore).some((warning) => warning.includes('429')), {
      message: () => `a refused attempt; warnings: ${app.logger.warnings.join(' | ')}`,
    });
    // The consumer catches up while n-2 waits for its retry; n-3, produced now, must still land after it.
    const fetched = await broker.request('POST', `/mmmq/consumers/${ordered}/fetch`, { max: 10 });
    await broker.request('POST', `/mmmq/consumers/${ordered}/ack`, {
      leases: fetched.body.messages.map((message: { lease: string }) => message.lease),
    });
    const later = app.producer.produce(orderedTopic, 3, { id: 'n-3' });
    await Promise.all([refused, later]);
    expect((await broker.stored(orderedTopic)).map((message) => message.id)).toEqual(['n-0', 'n-1', 'n-2', 'n-3']);
  });
});

import { register } from 'prom-client';
import { MetricsOptions, MmmqBrokerOptions } from '../../src';
import { BrokerApp, HTTP_PLATFORMS, startBroker } from '../http/broker-app.fixture';
import { PullClient, waitUntil, type Fetched } from '../delivery/pull.fixture';
import { TestConsumer } from '../support/test-consumer';
import { ScrapedMetrics } from './scraped-metrics';

const CONSUMER = 'metrics-c';
const ADMIN_TOKEN = 'a'.repeat(32);
/** order.a gets 5 messages, order.b 3; the consumer ACKs the even `n` and NACKs the odd ones. */
const WORKLOAD = { 'order.a': 5, 'order.b': 3 } as const;

/** The broker options plus the module's `metrics` option, which `forRoot` takes beside them. */
function withMetrics(metrics: MetricsOptions, options: MmmqBrokerOptions = {}): MmmqBrokerOptions {
  const all: MmmqBrokerOptions & { metrics: MetricsOptions } = { ...options, metrics };
  return all;
}

async function scrape(broker: BrokerApp, path = '/metrics', headers: Record<string, string> = {}): Promise<ScrapedMetrics> {
  const response = await fetch(`${broker.url}${path}`, { headers });
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
  // The parameters of register.contentType, in whatever order the HTTP platform writes them.
  const parameters = (type: string | null) =>
    type
      ?.split(';')
      .map((part) => part.trim())
      .sort();
  expect(parameters(response.headers.get('content-type'))).toEqual(parameters(register.contentType));
  // Written in chunks as the scrape makes them: never hashed whole for an ETag (~3 MB at the series cap).
  expect(response.headers.get('etag')).toBeNull();
  return new ScrapedMetrics(await response.text());
}

describe('GET /metrics', () => {
  let broker: BrokerApp | undefined;
  let other: BrokerApp | undefined;

  afterEach(async () => {
    await Promise.all([broker?.close(), other?.close()]);
    broker = other = undefined;
  });

  it('counts a scripted workload exactly: published, delivered, nacked into dead letters, lag 0, histogram counts', async () => {
    broker = await startBroker();
    const consumer = new PullClient(broker, CONSUMER);
    await consumer.register({ pattern: 'order.*', maxDeliveries: 1 });
    for (const [topic, count] of Object.entries(WORKLOAD)) {
      await broker.publishAll(
        topic,
        Array.from({ length: count }, (_, n) => ({ n })),
      );
    }
    // Nothing settled yet: the age of the oldest unsettled message is known for both subscriptions (which start
    // right after their topic's first publish).
    for (const [topic, count] of Object.entries(WORKLOAD)) {
      await waitUntil(async () => (await broker!.subscription(CONSUMER, topic))?.lag === count, `the subscription to ${topic}`);
    }
    const before = await scrape(broker);
    expect(before.value('mmmq_subscription_lag_messages', { topic: 'order.a', consumer_id: CONSUMER })).toBe(5);
    expect(before.value('mmmq_subscription_lag_seconds', { topic: 'order.b', consumer_id: CONSUMER })).toBeGreaterThanOrEqual(0);
    const fetched: Fetched[] = [];
    await waitUntil(async () => {
      fetched.push(...(await consumer.fetch({ max: 100 })));
      return fetched.length === 8;
    }, 'all 8 messages fetched');
    const even = (message: Fetched) => (message.content as { n: number }).n % 2 === 0;
    await consumer.ack(fetched.filter(even).map((message) => message.lease));
    await consumer.nack(fetched.filter((message) => !even(message)).map((message) => message.lease));
    for (const topic of Object.keys(WORKLOAD)) await broker.caughtUp(CONSUMER, topic);

    const metrics = await scrape(broker);
    const a = { topic: 'order.a' };
    const b = { topic: 'order.b' };
    expect([metrics.value('mmmq_topic_messages_published_total', a), metrics.value('mmmq_topic_messages_published_total', b)]).toEqual([
      5, 3,
    ]);
    expect(metrics.type('mmmq_topic_messages_published_total')).toBe('COUNTER');
    expect(metrics.value('mmmq_topic_published_bytes_total', a)).toBeGreaterThan(0);
    expect([metrics.count('mmmq_topic_publish_latency_seconds', a), metrics.count('mmmq_topic_publish_latency_seconds', b)]).toEqual([
      5, 3,
    ]);
    expect(metrics.value('mmmq_topic_log_end_offset', a)).toBe(5);
    expect(metrics.value('mmmq_topic_log_end_offset', b)).toBe(3);
    expect(metrics.value('mmmq_topic_log_end_offset', { topic: `__dlq.${CONSUMER}` })).toBe(3);
    expect(metrics.value('mmmq_topic_segments', a)).toBe(1);
    expect(metrics.value('mmmq_topic_size_bytes', a)).toBeGreaterThan(0);

    const subA = { topic: 'order.a', consumer_id: CONSUMER };
    const subB = { topic: 'order.b', consumer_id: CONSUMER };
    const per = (name: string) => [metrics.value(name, subA), metrics.value(name, subB)];
    expect(per('mmmq_subscription_delivered_total')).toEqual([3, 2]);
    expect(per('mmmq_subscription_acked_total')).toEqual([3, 2]);
    expect(per('mmmq_subscription_nacked_total')).toEqual([2, 1]);
    expect(per('mmmq_subscription_dead_lettered_total')).toEqual([2, 1]);
    expect(per('mmmq_subscription_redelivered_total')).toEqual([0, 0]);
    expect(per('mmmq_subscription_leases_expired_total')).toEqual([0, 0]);
    expect(per('mmmq_subscription_lag_messages')).toEqual([0, 0]);
    expect(per('mmmq_subscription_lag_seconds')).toEqual([0, 0]);
    expect(per('mmmq_subscription_in_flight_messages')).toEqual([0, 0]);
    expect(per('mmmq_subscription_position')).toEqual([5, 3]);

    // One journal record per group commit; each record fsync'd once.
    const records = metrics.value('mmmq_journal_records_total');
    expect(records).toBeGreaterThanOrEqual(8);
    expect(metrics.count('mmmq_journal_group_commit_size')).toBe(metrics.value('mmmq_journal_fsyncs_total'));
    expect(metrics.count('mmmq_journal_fsync_seconds')).toBe(metrics.value('mmmq_journal_fsyncs_total'));
    expect(metrics.value('mmmq_journal_size_bytes')).toBeGreaterThan(0);
    for (const name of ['process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'process_open_fds'])
      expect(metrics.has(name)).toBe(true);
    // Labels stay bounded: topic and consumer id only.
    for (const labels of metrics.labels('mmmq_subscription_delivered_total'))
      expect(Object.keys(labels).sort()).toEqual(['consumer_id', 'topic']);
  });

  it('counts the re-publishes de-duplicated per topic, and not as published', async () => {
    broker = await startBroker();
    for (let n = 0; n < 3; n++)
      expect((await broker.request('POST', '/mmmq/messages', { topic: 'order.a', id: 'same', content: n })).status).toBe(200);
    const metrics = await scrape(broker);
    expect(metrics.value('mmmq_topic_messages_deduplicated_total', { topic: 'order.a' })).toBe(2);
    expect(metrics.value('mmmq_topic_messages_published_total', { topic: 'order.a' })).toBe(1);
  });

  it('counts the outputs of a transaction as published to their topics', async () => {
    broker = await startBroker();
    const consumer = new PullClient(broker, 'transacting');
    await consumer.register({ pattern: 'order.in' });
    await broker.publishAll('order.in', [{ n: 1 }]);
    let fetched: Fetched[] = [];
    await waitUntil(async () => (fetched = await consumer.fetch()).length === 1, 'the input fetched');
    const body = {
      consumerId: 'transacting',
      settle: [fetched[0].lease],
      messages: [
        { topic: 'order.out', content: { n: 2 } },
        { topic: 'order.out', content: 3 },
      ],
    };
    expect((await broker.request('POST', '/mmmq/transactions', body)).status).toBe(200);
    const metrics = await scrape(broker);
    expect(metrics.value('mmmq_topic_messages_published_total', { topic: 'order.out' })).toBe(2);
    expect(metrics.count('mmmq_topic_publish_latency_seconds', { topic: 'order.out' })).toBe(1);
    expect(metrics.value('mmmq_subscription_delivered_total', { topic: 'order.in', consumer_id: 'transacting' })).toBe(1);
  });

  it('times each push until its answer, and shows a member backing off after a failed push', async () => {
    // A backoff long enough to be seen by a scrape; the test ends it by closing the broker.
    broker = await startBroker({ delivery: { backoff: { initialMs: 60_000, maxMs: 60_000 } } });
    const consumer = new TestConsumer();
    await consumer.start();
    try {
      consumer.reply = (delivery) => ((delivery.body.content as { n: number }).n < 3 ? 'ACK' : { status: 500 });
      await broker.addDispatcher('pushed', consumer.url, 'order.pushed', { batchSize: 1 });
      await broker.publishAll('order.pushed', [{ n: 0 }, { n: 1 }, { n: 2 }]);
      await broker.caughtUp('pushed', 'order.pushed');
      const labels = { topic: 'order.pushed', consumer_id: 'pushed' };
      const answered = await scrape(broker);
      expect(answered.count('mmmq_subscription_delivery_latency_seconds', labels)).toBe(3);
      await broker.publishAll('order.pushed', [{ n: 3 }]);
      await waitUntil(async () => (await scrape(broker!)).labels('mmmq_subscription_backoff_members').length > 0, 'a member to back off');
      expect((await scrape(broker)).value('mmmq_subscription_backoff_members', labels)).toBe(1);
      // The failed push got no answer: it is not timed.
      expect((await scrape(broker)).count('mmmq_subscription_delivery_latency_seconds', labels)).toBe(3);
    } finally {
      await broker.close();
      await consumer.stop();
    }
  });

  it.each(HTTP_PLATFORMS)('answers in the text format with its content type on %s', async (platform) => {
    broker = await startBroker({}, undefined, platform);
    await broker.publishAll('order.platform', [{ n: 1 }]);
    expect((await scrape(broker)).value('mmmq_topic_messages_published_total', { topic: 'order.platform' })).toBe(1);
  });

  it('keeps two brokers in one process apart: each has its own registry', async () => {
    [broker, other] = await Promise.all([startBroker(), startBroker()]);
    await broker.publishAll('order.one', [{ n: 1 }]);
    await other.publishAll('order.two', [{ n: 1 }, { n: 2 }]);
    const [first, second] = await Promise.all([scrape(broker), scrape(other)]);
    expect(first.labels('mmmq_topic_messages_published_total')).toEqual([{ topic: 'order.one' }]);
    expect(second.value('mmmq_topic_messages_published_total', { topic: 'order.two' })).toBe(2);
  });

  it('serves another path when metrics.path is set, and nothing when metrics.enabled is false', async () => {
    [broker, other] = await Promise.all([
      startBroker(withMetrics({ path: 'ops/prometheus' })),
      startBroker(withMetrics({ enabled: false })),
    ]);
    expect((await scrape(broker, '/ops/prometheus')).has('mmmq_journal_size_bytes')).toBe(true);
    expect((await fetch(`${broker.url}/metrics`)).status).toBe(404);
    expect((await fetch(`${other.url}/metrics`)).status).toBe(404);
  });

  it('asks for an admin token when the broker has tokens', async () => {
    broker = await startBroker({
      auth: {
        tokens: [
          { token: ADMIN_TOKEN, roles: ['admin'] },
          { token: 'p'.repeat(32), roles: ['publish'] },
        ],
      },
    });
    expect((await fetch(`${broker.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${broker.url}/metrics`, { headers: { authorization: `Bearer ${'p'.repeat(32)}` } })).status).toBe(403);
    expect((await scrape(broker, '/metrics', { authorization: `Bearer ${ADMIN_TOKEN}` })).has('mmmq_journal_files')).toBe(true);
  });
});

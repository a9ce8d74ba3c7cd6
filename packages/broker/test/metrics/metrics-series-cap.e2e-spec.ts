import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { PullClient, waitUntil } from '../delivery/pull.fixture';
import { ScrapedMetrics } from './scraped-metrics';

/** Mirrors DEFAULT_MAX_TOPIC_SERIES / DEFAULT_MAX_SUBSCRIPTION_SERIES: written out, so the test pins the documented default. */
const DOCUMENTED_DEFAULT_CAP = 1_000;
/** More topics than the default cap. */
const TOPICS = 1_100;
const BATCH = 500;
const CONSUMER = 'capped';
const OTHER = '__other';

const topicName = (n: number) => `cap.${String(n).padStart(4, '0')}`;

async function scrape(broker: BrokerApp): Promise<{ metrics: ScrapedMetrics; bytes: number }> {
  const response = await fetch(`${broker.url}/metrics`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /metrics: ${response.status} ${text}`);
  return { metrics: new ScrapedMetrics(text), bytes: Buffer.byteLength(text) };
}

async function subscriptionCount(broker: BrokerApp): Promise<number> {
  const { body } = await broker.request('GET', '/mmmq/subscriptions');
  return (Array.isArray(body) ? body : body.subscriptions).length;
}

/** The sum of every series of `name`. */
const total = (metrics: ScrapedMetrics, name: string, key = (labels: Record<string, string>) => labels) =>
  metrics.labels(name).reduce((sum, labels) => sum + metrics.value(name, key(labels)), 0);

describe('GET /metrics with more topics than the series cap', () => {
  let broker: BrokerApp | undefined;

  afterEach(async () => {
    await broker?.close();
    broker = undefined;
  });

  it('gives at most the default cap of topics and subscriptions a series each, and sums the rest under "__other"', async () => {
    broker = await startBroker();
    const consumer = new PullClient(broker, CONSUMER);
    await consumer.register({ pattern: 'cap.*' });
    // Topic n gets 1 message, every tenth 2: the heaviest topics are the multiples of ten.
    const messages = Array.from({ length: TOPICS }, (_, n) =>
      Array.from({ length: n % 10 === 0 ? 2 : 1 }, () => ({ topic: topicName(n), content: n })),
    ).flat();
    // One publish-latency observation per topic of each batch (a batch holds at most 1,000 messages).
    let commitParts = 0;
    for (let from = 0; from < messages.length; from += BATCH) {
      const batch = messages.slice(from, from + BATCH);
      commitParts += new Set(batch.map((message) => message.topic)).size;
      expect((await broker.request('POST', '/mmmq/messages/batch', { messages: batch })).status).toBe(200);
    }
    await waitUntil(async () => (await subscriptionCount(broker!)) === TOPICS, `${TOPICS} subscriptions`, 30_000);

    const { metrics } = await scrape(broker);
    for (const name of [
      'mmmq_topic_messages',
      'mmmq_topic_messages_published_total',
      'mmmq_topic_size_bytes',
      'mmmq_subscription_lag_messages',
    ]) {
      const labels = metrics.labels(name);
      expect({ name, series: labels.length }).toEqual({ name, series: DOCUMENTED_DEFAULT_CAP + 1 });
      expect(labels.filter((set) => set.topic === OTHER)).toHaveLength(1);
    }
    expect(metrics.labels('mmmq_topic_publish_latency_seconds_count').length).toBeLessThanOrEqual(DOCUMENTED_DEFAULT_CAP + 1);
    // Nothing lost to the cap: the series and the aggregate add up to every topic and subscription.
    expect(total(metrics, 'mmmq_topic_messages')).toBe(messages.length);
    expect(total(metrics, 'mmmq_topic_messages_published_total')).toBe(messages.length);
    expect(total(metrics, 'mmmq_topic_publish_latency_seconds_count')).toBe(commitParts);
    expect(total(metrics, 'mmmq_subscription_lag_messages')).toBe(messages.length);
    expect(metrics.value('mmmq_subscription_lag_messages', { topic: OTHER, consumer_id: OTHER })).toBeGreaterThan(0);
  });
});

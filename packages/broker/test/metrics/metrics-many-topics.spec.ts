import { DEFAULT_MAX_SUBSCRIPTION_SERIES, DEFAULT_MAX_TOPIC_SERIES } from '../../src/metrics/metrics.options';
import { ManyTopics, measureScrape } from './many-topics.fixture';
import { ScrapedMetrics } from './scraped-metrics';

const OTHER = '__other';

const sum = (metrics: ScrapedMetrics, name: string) =>
  metrics.labels(name).reduce((total, labels) => total + metrics.value(name, labels), 0);

describe('BrokerMetrics with many topics', () => {
  it('serves 10,000 topics and subscriptions as the default cap of series each plus "__other", in turns of the event loop', async () => {
    const broker = new ManyTopics(10_000);
    const scrape = await measureScrape(() => broker.metrics.scrape());
    const metrics = new ScrapedMetrics(scrape.text);

    expect(metrics.labels('mmmq_topic_messages')).toHaveLength(DEFAULT_MAX_TOPIC_SERIES + 1);
    expect(metrics.labels('mmmq_subscription_lag_messages')).toHaveLength(DEFAULT_MAX_SUBSCRIPTION_SERIES + 1);
    expect(sum(metrics, 'mmmq_topic_messages')).toBe(broker.messages);
    expect(sum(metrics, 'mmmq_topic_size_bytes')).toBe(100 * broker.messages);
    expect(sum(metrics, 'mmmq_subscription_lag_messages')).toBe(broker.messages);
    expect(metrics.value('mmmq_topic_writable', { topic: OTHER })).toBe(1);
    // Offsets do not add up: no "__other" series.
    expect(metrics.labels('mmmq_topic_log_end_offset').some((labels) => labels.topic === OTHER)).toBe(false);
    // The heaviest topics (6 messages: n % 7 === 6) got the slots.
    expect(
      Math.min(
        ...metrics
          .labels('mmmq_topic_messages')
          .filter((l) => l.topic !== OTHER)
          .map((l) => metrics.value('mmmq_topic_messages', l)),
      ),
    ).toBe(6);
    // In turns of the event loop; how little each turn does is checked without a clock (scrape-turns.spec.ts):
    // a bound in milliseconds here failed on a busy machine (163 ms).
    expect(scrape.turns).toBeGreaterThan(10);
  });

  it("keeps the series it gave (counters only grow), and gives a deleted topic's slot to the heaviest topic without one", async () => {
    const broker = new ManyTopics(0, { maxTopicSeries: 2, maxSubscriptionSeries: 2 });
    broker.addTopic('a', 1);
    broker.addTopic('b', 2);
    broker.addTopic('c', 3);
    broker.addTopic('d', 5);
    broker.subscriptions.get('a')!.stats.delivered = 10;
    broker.subscriptions.get('b')!.stats.delivered = 20;
    const first = new ScrapedMetrics(await broker.metrics.scrape());
    const own = (metrics: ScrapedMetrics) =>
      metrics
        .labels('mmmq_topic_messages')
        .map((labels) => labels.topic)
        .sort();
    expect(own(first)).toEqual(['__other', 'c', 'd']);
    expect(first.value('mmmq_topic_messages', { topic: OTHER })).toBe(3);
    expect(first.value('mmmq_subscription_delivered_total', { topic: OTHER, consumer_id: OTHER })).toBe(30);

    // A heavier topic does not take a slot from one that has it: the series stay put.
    broker.addTopic('e', 100);
    broker.subscriptions.get('b')!.stats.delivered = 25;
    const second = new ScrapedMetrics(await broker.metrics.scrape());
    expect(own(second)).toEqual(['__other', 'c', 'd']);
    expect(second.value('mmmq_subscription_delivered_total', { topic: OTHER, consumer_id: OTHER })).toBe(35);

    // d is deleted: its slot goes to e, the heaviest without one; what b counted in "__other" stays counted there.
    broker.deleteTopic('d');
    const third = new ScrapedMetrics(await broker.metrics.scrape());
    expect(own(third)).toEqual(['__other', 'c', 'e']);
    expect(third.value('mmmq_topic_messages', { topic: OTHER })).toBe(3);
    expect(third.value('mmmq_subscription_delivered_total', { topic: OTHER, consumer_id: OTHER })).toBe(35);
  });

  it('measures the publishes of topics beyond the cap under topic="__other"', async () => {
    const broker = new ManyTopics(0, { maxTopicSeries: 1 });
    for (const topic of ['first', 'second', 'third']) broker.addTopic(topic, 0);
    broker.measured.committed(
      [
        { topic: 'first', messages: 2, bytes: 20 },
        { topic: 'second', messages: 3, bytes: 30 },
        { topic: 'third', messages: 4, bytes: 40 },
      ],
      0.001,
    );
    const metrics = new ScrapedMetrics(await broker.metrics.scrape());
    expect(metrics.labels('mmmq_topic_messages_published_total')).toEqual([{ topic: 'first' }, { topic: OTHER }]);
    expect(metrics.value('mmmq_topic_messages_published_total', { topic: OTHER })).toBe(7);
    expect(metrics.count('mmmq_topic_publish_latency_seconds', { topic: OTHER })).toBe(2);
  });

  it('serves the same text as prom-client would', async () => {
    const broker = new ManyTopics(20, { maxTopicSeries: 5 });
    broker.measured.committed([{ topic: 'topic.000003', messages: 1, bytes: 10 }], 0.002);
    const ours = await broker.metrics.scrape();
    // Process metrics (CPU time, memory) change between two reads: compare the broker's own.
    const own = (text: string) =>
      text
        .split('\n\n')
        .filter((metric) => metric.includes('# HELP mmmq_'))
        .join('\n\n');
    expect(own(ours)).toBe(own(await broker.metrics.registry.metrics()));
  });
});

import { performance } from 'node:perf_hooks';
import { BrokerMetrics } from '../../src/metrics/broker-metrics';
import { MeasuredMetrics } from '../../src/metrics/measured-metrics';
import { DEFAULT_METRICS_PATH, EnabledMetricsOptions, resolveMetricsOptions } from '../../src/metrics/metrics.options';
import type { DispatcherRegistry } from '../../src/dispatch/dispatcher-registry';
import type { SubscriptionContainer } from '../../src/dispatch/subscription-container';
import type { TopicQueueContainer } from '../../src/storage/topic-queue-container';

/** What the metrics read of a topic: a real one has files, too many for 100,000 of them on one test machine. */
export interface TopicView {
  name: string;
  tailOffset: number;
  startOffset: number;
  byteSize: number;
  chain: { segmentCount: number };
  writable: boolean;
  peek(offset: number): Promise<Buffer | null>;
}

/** What the metrics read of a subscription. */
export interface SubscriptionView {
  queue: TopicView;
  consumerId: string;
  position: number;
  leased: number;
  state: 'active' | 'unauthorized';
  readonly backlog: number;
  stats: Record<string, number>;
}

/** The views of a broker with `topics` topics, each read by one consumer; topic n keeps n % 7 messages. */
export class ManyTopics {
  readonly topics = new Map<string, TopicView>();
  readonly subscriptions = new Map<string, SubscriptionView>();
  readonly measured: MeasuredMetrics;
  readonly metrics: BrokerMetrics;

  constructor(
    topics: number,
    metrics: Partial<EnabledMetricsOptions> = {},
    readonly consumerId = 'c',
  ) {
    for (let n = 0; n < topics; n++) this.addTopic(`topic.${String(n).padStart(6, '0')}`, n % 7);
    const options = resolveMetricsOptions({ path: DEFAULT_METRICS_PATH, ...metrics }) as EnabledMetricsOptions;
    this.measured = new MeasuredMetrics(options);
    const queues = {
      list: () => [...this.topics.values()],
      each: () => this.topics.values(),
      journal: { stats: { commits: 0, journalFsyncs: 0, flushes: 0, nonPersistentLost: 0 } },
      view: async () => ({ journal: { bytes: 0, files: 1 } }),
    };
    const subscriptions = {
      subscriptionsOf: (consumerId: string) => (consumerId === this.consumerId ? [...this.subscriptions.values()] : []),
      eachSubscriptionOf: (consumerId: string) => (consumerId === this.consumerId ? this.subscriptions.values() : []),
    };
    const dispatchers = { list: () => [{ consumerId }] };
    this.metrics = new BrokerMetrics(
      this.measured,
      queues as unknown as TopicQueueContainer,
      subscriptions as unknown as SubscriptionContainer,
      dispatchers as unknown as DispatcherRegistry,
    );
  }

  /** A topic keeping `messages` messages, nothing of them consumed, and its subscription. */
  addTopic(name: string, messages: number): void {
    const topic: TopicView = {
      name,
      tailOffset: messages,
      startOffset: 0,
      byteSize: 100 * messages,
      chain: { segmentCount: 1 },
      writable: true,
      // No publish time to read: the age is left out, as for a message retention deleted.
      peek: async () => null,
    };
    this.topics.set(name, topic);
    const subscription: SubscriptionView = {
      queue: topic,
      consumerId: this.consumerId,
      position: 0,
      leased: 0,
      state: 'active',
      get backlog() {
        return topic.tailOffset - this.position;
      },
      stats: { delivered: 0, nacked: 0, redelivered: 0, deadLettered: 0, expired: 0, messagesExpired: 0, failures: 0 },
    };
    this.subscriptions.set(name, subscription);
  }

  deleteTopic(name: string): void {
    this.topics.delete(name);
    this.subscriptions.delete(name);
  }

  /** Sum of `messages` over the topics. */
  get messages(): number {
    return [...this.topics.values()].reduce((sum, topic) => sum + topic.tailOffset - topic.startOffset, 0);
  }
}

/** What a scrape took: the text, and the longest time the event loop was held while it ran. */
export interface MeasuredScrape {
  text: string;
  bytes: number;
  /** The longest gap between two turns of a setImmediate chain running beside the scrape. */
  longestStallMs: number;
  totalMs: number;
  turns: number;
}

/** Runs `scrape` with a setImmediate chain beside it: a gap between two of its turns is a turn held by the scrape. */
export async function measureScrape(scrape: () => Promise<string>): Promise<MeasuredScrape> {
  let longestStallMs = 0;
  let turns = 0;
  let last = performance.now();
  let running = true;
  const probe = () => {
    const now = performance.now();
    longestStallMs = Math.max(longestStallMs, now - last);
    last = now;
    turns++;
    if (running) setImmediate(probe);
  };
  setImmediate(probe);
  const started = performance.now();
  const text = await scrape();
  const totalMs = performance.now() - started;
  running = false;
  probe();
  return { text, bytes: Buffer.byteLength(text), longestStallMs, totalMs, turns };
}

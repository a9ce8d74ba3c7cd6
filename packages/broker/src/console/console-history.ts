import { performance } from 'node:perf_hooks';
import { SampleRing } from './sample-ring';

/** Time between two samples. */
export const HISTORY_INTERVAL_MS = 1_000;
/** Samples kept: 15 minutes at one a second. */
export const HISTORY_SAMPLES = 900;
/** Topics with a chart series of their own (the first ones seen); the totals count every topic. */
export const HISTORY_MAX_TOPICS = 100;
/** Subscriptions with series of their own (the first ones seen); the totals count every subscription. */
export const HISTORY_MAX_SUBSCRIPTIONS = 200;

/** What a sample reads of a topic (a TopicQueue, or a fake in a unit test). */
export interface SampledTopic {
  readonly name: string;
  readonly tailOffset: number;
  readonly topic: { readonly isReserved: boolean };
}

/** What a sample reads of a subscription. */
export interface SampledSubscription {
  readonly consumerId: string;
  readonly queue: { readonly name: string };
  readonly backlog: number;
  readonly stats: { readonly delivered: number };
}

export interface HistorySources {
  topics(): Iterable<SampledTopic>;
  subscriptions(): Iterable<SampledSubscription>;
}

export interface HistoryLimits {
  intervalMs: number;
  samples: number;
  maxTopics: number;
  maxSubscriptions: number;
}

const DEFAULT_LIMITS: HistoryLimits = {
  intervalMs: HISTORY_INTERVAL_MS,
  samples: HISTORY_SAMPLES,
  maxTopics: HISTORY_MAX_TOPICS,
  maxSubscriptions: HISTORY_MAX_SUBSCRIPTIONS,
};

/** `GET /mmmq/console/data/history`: the newest samples, oldest first, every series as long as `times`. */
export interface HistoryView {
  intervalMs: number;
  capacity: number;
  /** Samples taken since start: ask again with `since` set to it for only the newer ones. */
  sequence: number;
  /** When each sample was taken (epoch ms). */
  times: number[];
  /** Published and delivered messages per second and total lag, over every topic and subscription. */
  totals: { published: Array<number | null>; delivered: Array<number | null>; lag: Array<number | null> };
  topics: Array<{ topic: string; published: Array<number | null> }>;
  subscriptions: Array<{ topic: string; consumerId: string; delivered: Array<number | null>; lag: Array<number | null> }>;
  /** Topics and subscriptions beyond the caps: in the totals, without series of their own. */
  untracked: { topics: number; subscriptions: number };
}

interface SubscriptionRings {
  topic: string;
  consumerId: string;
  delivered: SampleRing;
  lag: SampleRing;
}

/**
 * The console's charts' memory: every second, one pass over the open topics and subscriptions reads the counters the
 * broker keeps anyway (a topic's tail offset, a subscription's `delivered` count and backlog) into fixed-size rings of
 * 900 samples. Nothing runs per message; the cost is one timer and a walk proportional to the topics and
 * subscriptions, and memory is capped by the series caps (about 1.8 MB at the defaults, allocated as series appear).
 * Rates are the counters' growth divided by the time measured between two samples.
 */
export class ConsoleHistory {
  private readonly limits: HistoryLimits;
  private readonly times: Float64Array;
  private readonly totals: { published: SampleRing; delivered: SampleRing; lag: SampleRing };
  /** By the topic or subscription object itself: no key to build per item and sample. */
  private readonly topicRings = new Map<SampledTopic, SampleRing>();
  private readonly subscriptionRings = new Map<SampledSubscription, SubscriptionRings>();
  /** The counters of the previous sample, for every topic and subscription (capped or not); gone with them. */
  private readonly previousTails = new WeakMap<SampledTopic, number>();
  private readonly previousDelivered = new WeakMap<SampledSubscription, number>();
  private previousAt?: number;
  private count = 0;
  private untracked = { topics: 0, subscriptions: 0 };
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly sources: HistorySources,
    limits: Partial<HistoryLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.times = new Float64Array(this.limits.samples);
    const ring = () => new SampleRing(this.limits.samples);
    this.totals = { published: ring(), delivered: ring(), lag: ring() };
  }

  start(): void {
    this.timer ??= setInterval(() => this.sample(), this.limits.intervalMs).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Takes one sample now (the timer's work; tests call it directly). */
  sample(now = performance.now(), wallClock = Date.now()): void {
    const head = this.count % this.limits.samples;
    const seconds = this.previousAt === undefined ? undefined : (now - this.previousAt) / 1000;
    const rate = (counter: number, previous: number | undefined) =>
      seconds === undefined || previous === undefined || seconds <= 0 ? Number.NaN : Math.max(0, counter - previous) / seconds;
    this.count += 1;
    this.times[head] = wallClock;

    let published = 0;
    let untrackedTopics = 0;
    for (const queue of this.sources.topics()) {
      if (queue.topic.isReserved) continue;
      const perSecond = rate(queue.tailOffset, this.previousTails.get(queue));
      this.previousTails.set(queue, queue.tailOffset);
      if (!Number.isNaN(perSecond)) published += perSecond;
      const ring = this.ringOf(this.topicRings, queue, this.limits.maxTopics, () => new SampleRing(this.limits.samples));
      if (ring === undefined) untrackedTopics++;
      else {
        ring.set(head, perSecond);
        ring.seenAt = this.count;
      }
    }

    let delivered = 0;
    let lag = 0;
    let untrackedSubscriptions = 0;
    for (const subscription of this.sources.subscriptions()) {
      const perSecond = rate(subscription.stats.delivered, this.previousDelivered.get(subscription));
      this.previousDelivered.set(subscription, subscription.stats.delivered);
      if (!Number.isNaN(perSecond)) delivered += perSecond;
      lag += subscription.backlog;
      const rings = this.ringOf(this.subscriptionRings, subscription, this.limits.maxSubscriptions, () => ({
        topic: subscription.queue.name,
        consumerId: subscription.consumerId,
        delivered: new SampleRing(this.limits.samples),
        lag: new SampleRing(this.limits.samples),
      }));
      if (rings === undefined) untrackedSubscriptions++;
      else {
        rings.delivered.set(head, perSecond);
        rings.lag.set(head, subscription.backlog);
        rings.delivered.seenAt = this.count;
      }
    }

    this.totals.published.set(head, seconds === undefined ? Number.NaN : published);
    this.totals.delivered.set(head, seconds === undefined ? Number.NaN : delivered);
    this.totals.lag.set(head, lag);
    this.forgetUnseen();
    this.previousAt = now;
    this.untracked = { topics: untrackedTopics, subscriptions: untrackedSubscriptions };
  }

  /** The samples taken after sample number `since` (all that are kept without it), oldest first. */
  history(since?: number): HistoryView {
    const kept = Math.min(this.count, this.limits.samples);
    const count = since === undefined ? kept : Math.max(0, Math.min(kept, this.count - since));
    const head = (this.count - 1 + this.limits.samples) % this.limits.samples;
    const times: number[] = [];
    for (let i = 0; i < count; i++) times.push(this.times[(head - count + 1 + i + this.limits.samples) % this.limits.samples]);
    const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const subscriptions = [...this.subscriptionRings.values()];
    return {
      intervalMs: this.limits.intervalMs,
      capacity: this.limits.samples,
      sequence: this.count,
      times,
      totals: {
        published: this.totals.published.newest(head, count),
        delivered: this.totals.delivered.newest(head, count),
        lag: this.totals.lag.newest(head, count),
      },
      topics: [...this.topicRings]
        .sort(([a], [b]) => byName(a.name, b.name))
        .map(([queue, ring]) => ({ topic: queue.name, published: ring.newest(head, count) })),
      subscriptions: subscriptions
        .sort((a, b) => byName(a.topic, b.topic) || byName(a.consumerId, b.consumerId))
        .map((rings) => ({
          topic: rings.topic,
          consumerId: rings.consumerId,
          delivered: rings.delivered.newest(head, count),
          lag: rings.lag.newest(head, count),
        })),
      untracked: { ...this.untracked },
    };
  }

  /** The series of `key`, made while there is room for one more; undefined beyond the cap. */
  private ringOf<K, T>(rings: Map<K, T>, key: K, cap: number, make: () => T): T | undefined {
    let ring = rings.get(key);
    if (ring === undefined && rings.size < cap) rings.set(key, (ring = make()));
    return ring;
  }

  /** Series whose topic or subscription is gone free their slot (a topic deleted, a dispatcher removed). */
  private forgetUnseen(): void {
    for (const [queue, ring] of this.topicRings) if (ring.seenAt !== this.count) this.topicRings.delete(queue);
    for (const [subscription, rings] of this.subscriptionRings) {
      if (rings.delivered.seenAt !== this.count) this.subscriptionRings.delete(subscription);
    }
  }
}

import { Gauge, Registry } from 'prom-client';
import { SubscriptionContainer } from '../dispatch/subscription-container';
import { decodeEnvelope } from '../publish/message-envelope';
import { TopicQueueContainer } from '../storage/topic-queue-container';

/**
 * `mmmq_subscription_lag_seconds`: how long ago the oldest message a subscription has not settled (the one at its
 * position) was published; 0 without lag. One read of that message per subscription with lag, at scrape time (the
 * message is usually among the topic's recent entries, in memory). A message retention deleted meanwhile, or one
 * without a publish time, leaves the subscription out of that scrape.
 */
export function registerLagAge(registry: Registry, subscriptions: SubscriptionContainer, queues: TopicQueueContainer): void {
  new Gauge<'topic' | 'consumer_id'>({
    name: 'mmmq_subscription_lag_seconds',
    help: 'Age of the oldest message the consumer has not settled (0 without lag)',
    labelNames: ['topic', 'consumer_id'],
    registers: [registry],
    async collect() {
      this.reset();
      const now = Date.now();
      for (const view of subscriptions.list()) {
        const labels = { topic: view.topic, consumer_id: view.consumerId };
        if (view.lag === 0) {
          this.set(labels, 0);
          continue;
        }
        const payload = await queues
          .get(view.topic)
          ?.peek(view.position)
          .catch(() => null);
        const publishedAt = payload ? publishedAtOf(payload) : null;
        if (publishedAt !== null) this.set(labels, Math.max(0, now - publishedAt) / 1000);
      }
    },
  });
}

/** The publish time stored in the envelope; null for a payload that does not decode (the read verified its checksum). */
function publishedAtOf(payload: Buffer): number | null {
  try {
    return decodeEnvelope(payload).publishedAt;
  } catch {
    return null;
  }
}

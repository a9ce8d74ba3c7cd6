import { Gauge, Registry } from 'prom-client';
import type { Subscription } from '../dispatch/subscription';
import { decodeEnvelope } from '../format/message-envelope';
import type { CappedSeries } from './capped-series';
import { line } from './exposition-format';
import type { LineWriter } from './incremental-exposition';
import { TurnBudget } from './turn-budget';

const LAG_SECONDS = 'mmmq_subscription_lag_seconds';

/**
 * `mmmq_subscription_lag_seconds`: how long ago the oldest message a subscription has not settled (the one at its
 * position) was published; 0 without lag. One read of that message per subscription with a series of its own and
 * lag, at scrape time (the message is usually among the topic's recent entries, in memory); the subscriptions summed
 * under `__other` are not read (that would be one read per subscription of the broker): their lag is in
 * `mmmq_subscription_lag_messages`. A message retention deleted meanwhile, or one without a publish time, leaves the
 * subscription out of that scrape.
 */
export class SubscriptionLagAge {
  /** Writes the gauge's lines from the last walk in turns, for {@link BrokerMetrics.scrape} (its collect: one turn). */
  readonly writer: [string, LineWriter];
  private ages = new Map<Subscription, number>();

  constructor(registry: Registry, series: CappedSeries<Subscription>, walked: () => Promise<void>) {
    const ages = () => this.ages;
    this.writer = [
      LAG_SECONDS,
      async (text, budget) => {
        await walked();
        for (const own of series.own) {
          const pause = budget.spend();
          if (pause) await pause;
          const age = ages().get(own.item);
          if (age !== undefined) text.add(`\n${line(LAG_SECONDS, own.labels, age)}`);
        }
      },
    ];
    new Gauge<'topic' | 'consumer_id'>({
      name: LAG_SECONDS,
      help: 'Age of the oldest message the consumer has not settled (0 without lag)',
      labelNames: ['topic', 'consumer_id'],
      registers: [registry],
      async collect() {
        await walked();
        this.reset();
        for (const own of series.own) {
          const age = ages().get(own.item);
          if (age !== undefined) this.set(own.labels, age);
        }
      },
    });
  }

  /** Reads the oldest unsettled message of each subscription with a series of its own. */
  async refresh(series: CappedSeries<Subscription>, budget: TurnBudget): Promise<void> {
    const ages = new Map<Subscription, number>();
    const now = Date.now();
    for (const { item } of series.own) {
      const pause = budget.spend();
      if (pause) await pause;
      const position = item.position;
      if (item.queue.tailOffset - position <= 0) {
        ages.set(item, 0);
        continue;
      }
      const payload = await item.queue.peek(position).catch(() => null);
      const publishedAt = payload ? publishedAtOf(payload) : null;
      if (publishedAt !== null) ages.set(item, Math.max(0, now - publishedAt) / 1000);
    }
    this.ages = ages;
  }
}

/** The publish time stored in the envelope; null for a payload that does not decode (the read verified its checksum). */
function publishedAtOf(payload: Buffer): number | null {
  try {
    return decodeEnvelope(payload).publishedAt;
  } catch {
    return null;
  }
}

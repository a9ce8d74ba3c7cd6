import type { Subscription } from '../dispatch/subscription';
import type { SubscriptionStatsSnapshot } from '../dispatch/subscription-stats';
import type { CappedCounter, CappedFamily, CappedGauge } from './capped-series';
import { OTHER_SERIES, subscriptionKey } from './series-selection';

/** The labels of the subscriptions beyond `metrics.maxSubscriptionSeries`. */
export const OTHER_SUBSCRIPTION_LABELS = { topic: OTHER_SERIES, consumer_id: OTHER_SERIES };

/** Counters kept by each subscription since the broker started, exported as they are when scraped. */
const SUBSCRIPTION_COUNTERS: ReadonlyArray<{ name: string; help: string; stat: keyof SubscriptionStatsSnapshot }> = [
  { name: 'mmmq_subscription_delivered_total', help: 'Messages settled by an ACK', stat: 'delivered' },
  { name: 'mmmq_subscription_acked_total', help: 'Messages settled by an ACK (same as delivered)', stat: 'delivered' },
  { name: 'mmmq_subscription_nacked_total', help: 'NACKs received', stat: 'nacked' },
  { name: 'mmmq_subscription_redelivered_total', help: 'Deliveries of a message that may have been delivered before', stat: 'redelivered' },
  { name: 'mmmq_subscription_dead_lettered_total', help: 'Messages moved to the consumer dead-letter topic', stat: 'deadLettered' },
  { name: 'mmmq_subscription_leases_expired_total', help: 'Leases that ended without a settlement', stat: 'expired' },
  { name: 'mmmq_subscription_messages_expired_total', help: 'Messages past their expiresAt when due', stat: 'messagesExpired' },
  { name: 'mmmq_subscription_failures_total', help: 'Failed pushes (errors, timeouts, refused answers)', stat: 'failures' },
];

/** Gauges read from the subscription; the position does not add up, so it has no `__other` series. */
const SUBSCRIPTION_GAUGES: ReadonlyArray<CappedGauge<Subscription>> = [
  {
    name: 'mmmq_subscription_lag_messages',
    help: 'Messages of the topic the consumer has not settled yet',
    aggregate: 'sum',
    value: (s) => s.backlog,
  },
  { name: 'mmmq_subscription_in_flight_messages', help: 'Messages leased to members now', aggregate: 'sum', value: (s) => s.leased },
  {
    name: 'mmmq_subscription_position',
    help: 'Offset below which the consumer settled every message',
    aggregate: 'none',
    value: (s) => s.position,
  },
  {
    name: 'mmmq_subscription_unauthorized',
    help: '1 while the push host refuses the signature of the pushes',
    // For `__other`: how many of them are refused.
    aggregate: 'sum',
    value: (s) => Number(s.state === 'unauthorized'),
  },
];

/**
 * The per-subscription series (labels `topic` and `consumer_id`), read from each subscription when scraped (not from
 * `GET /mmmq/subscriptions`'s views, which copy every subscription's counters and members).
 */
export const SUBSCRIPTION_FAMILY: CappedFamily<Subscription> = {
  key: (s) => subscriptionKey(s.queue.name, s.consumerId),
  labels: (s) => ({ topic: s.queue.name, consumer_id: s.consumerId }),
  // The subscriptions furthest behind get a free slot first.
  weight: (s) => s.backlog,
  gauges: SUBSCRIPTION_GAUGES,
  counters: SUBSCRIPTION_COUNTERS.map(({ name, help, stat }): CappedCounter<Subscription> => ({
    name,
    help,
    value: (s) => s.stats[stat] as number,
  })),
};

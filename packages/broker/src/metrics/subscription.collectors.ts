import { Counter, Gauge, Registry } from 'prom-client';
import { SubscriptionContainer, SubscriptionView } from '../dispatch/subscription-container';
import type { SubscriptionStatsSnapshot } from '../dispatch/subscription-stats';

type Labels = 'topic' | 'consumer_id';

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

/** Gauges read from the subscription's view. */
const SUBSCRIPTION_GAUGES: ReadonlyArray<{ name: string; help: string; value: (view: SubscriptionView) => number }> = [
  { name: 'mmmq_subscription_lag_messages', help: 'Messages of the topic the consumer has not settled yet', value: (v) => v.lag },
  { name: 'mmmq_subscription_in_flight_messages', help: 'Messages leased to members now', value: (v) => v.leased },
  { name: 'mmmq_subscription_position', help: 'Offset below which the consumer settled every message', value: (v) => v.position },
  {
    name: 'mmmq_subscription_unauthorized',
    help: '1 while the push host refuses the signature of the pushes',
    value: (v) => Number(v.state === 'unauthorized'),
  },
];

/** The per-subscription series (labels `topic` and `consumer_id`), computed at every scrape. */
export function registerSubscriptionCollectors(registry: Registry, subscriptions: SubscriptionContainer): void {
  const labelNames: Labels[] = ['topic', 'consumer_id'];
  for (const { name, help, stat } of SUBSCRIPTION_COUNTERS) {
    new Counter<Labels>({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const view of subscriptions.list()) this.inc({ topic: view.topic, consumer_id: view.consumerId }, view.stats[stat] as number);
      },
    });
  }
  for (const { name, help, value } of SUBSCRIPTION_GAUGES) {
    new Gauge<Labels>({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const view of subscriptions.list()) this.set({ topic: view.topic, consumer_id: view.consumerId }, value(view));
      },
    });
  }
}

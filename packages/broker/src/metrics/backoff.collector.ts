import { Gauge, Registry } from 'prom-client';
import type { MeasuredMetrics } from './measured-metrics';
import { OTHER_SERIES } from './series-selection';

/**
 * `mmmq_subscription_backoff_members`, from the backoffs {@link MeasuredMetrics} counts as they start and end: a
 * series per subscription with one of its own that ever backed off, the others summed under `__other`.
 */
export function registerBackoffCollector(registry: Registry, measured: MeasuredMetrics): void {
  new Gauge<'topic' | 'consumer_id'>({
    name: 'mmmq_subscription_backoff_members',
    help: 'Push members of the subscription waiting out a backoff after a failed push (0: none)',
    labelNames: ['topic', 'consumer_id'],
    registers: [registry],
    collect() {
      this.reset();
      let other: number | undefined;
      for (const [key, members] of measured.backingOffMembers) {
        if (!measured.subscriptionSeries.has(key)) {
          other = (other ?? 0) + members;
          continue;
        }
        const [topic, consumerId] = key.split('\0');
        this.set({ topic, consumer_id: consumerId }, members);
      }
      if (other !== undefined) this.set({ topic: OTHER_SERIES, consumer_id: OTHER_SERIES }, other);
    },
  });
}

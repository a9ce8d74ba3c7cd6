import { Counter, Gauge, Registry } from 'prom-client';
import { CappedSeries } from './capped-series';

/**
 * Registers the gauges and counters of a capped family; each reads the series of the last scrape's walk
 * ({@link CappedSeries.refresh}, run by {@link BrokerMetrics.scrape} before them), so a collect sets at most
 * `limit + 1` values.
 */
export function registerCappedCollectors<Item>(
  registry: Registry,
  series: CappedSeries<Item>,
  otherLabels: Record<string, string>,
  /** Resolves once the series are recent (a scrape walked them just before; a bare `registry.metrics()` walks now). */
  walked: () => Promise<void>,
): void {
  const { family } = series;
  const labelNames = Object.keys(otherLabels);
  const registers = [registry];
  family.gauges.forEach(({ name, help, aggregate }, i) => {
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        await walked();
        this.reset();
        for (const own of series.own) this.set(own.labels, own.gauges[i]);
        if (series.otherItems > 0 && aggregate !== 'none') this.set(otherLabels, series.otherGauges[i]);
      },
    });
  });
  family.counters.forEach(({ name, help }, i) => {
    new Counter({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        await walked();
        this.reset();
        for (const own of series.own) this.inc(own.labels, own.counters[i]);
        // Once items were summed here, the series stays: a counter does not vanish when they got their own.
        if (series.otherItems > 0 || series.otherCounterTotals[i] > 0) this.inc(otherLabels, series.otherCounterTotals[i]);
      },
    });
  });
}

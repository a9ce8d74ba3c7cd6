import { Counter, Gauge, Registry } from 'prom-client';
import { CappedSeries, OwnSeries } from './capped-series';
import { line } from './exposition-format';
import type { ExpositionText } from './exposition-text';
import type { LineWriter } from './incremental-exposition';
import type { TurnBudget } from './turn-budget';

/**
 * Registers the gauges and counters of a capped family; each reads the series of the last scrape's walk
 * ({@link CappedSeries.refresh}, run by {@link BrokerMetrics.scrape} before them), so a collect sets at most
 * `limit + 1` values. Returns, by metric name, writers of the same lines in turns for {@link BrokerMetrics.scrape}:
 * a collect sets them all in one turn, through prom-client (1–5 ms for 1,001 on the 2-core test machine).
 */
export function registerCappedCollectors<Item>(
  registry: Registry,
  series: CappedSeries<Item>,
  otherLabels: Record<string, string>,
  /** Resolves once the series are recent (a scrape walked them just before; a bare `registry.metrics()` walks now). */
  walked: () => Promise<void>,
): Map<string, LineWriter> {
  const { family } = series;
  const labelNames = Object.keys(otherLabels);
  const registers = [registry];
  const writers = new Map<string, LineWriter>();
  const writeOwn = async (name: string, value: (own: OwnSeries<Item>) => number, text: ExpositionText, budget: TurnBudget) => {
    await walked();
    for (const own of series.own) {
      const pause = budget.spend();
      if (pause) await pause;
      text.add(`\n${line(name, own.labels, value(own))}`);
    }
  };
  family.gauges.forEach(({ name, help, aggregate }, i) => {
    writers.set(name, async (text, budget) => {
      await writeOwn(name, (own) => own.gauges[i], text, budget);
      if (series.otherItems > 0 && aggregate !== 'none') text.add(`\n${line(name, otherLabels, series.otherGauges[i])}`);
    });
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
    writers.set(name, async (text, budget) => {
      await writeOwn(name, (own) => own.counters[i], text, budget);
      if (series.otherItems > 0 || series.otherCounterTotals[i] > 0) text.add(`\n${line(name, otherLabels, series.otherCounterTotals[i])}`);
    });
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
  return writers;
}

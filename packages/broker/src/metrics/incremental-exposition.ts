import type { MetricObjectWithValues, MetricValueWithName, Registry } from 'prom-client';
import { escapeHelp, line } from './exposition-format';
import { ExpositionText } from './exposition-text';
import { writableInTurns, writeHistogramLines } from './histogram-lines';
import { TurnBudget } from './turn-budget';

/** Writes a metric's lines (each starting with a newline) itself, in turns, instead of through its `get()`. */
export type LineWriter = (text: ExpositionText, budget: TurnBudget) => Promise<void>;

/**
 * The registry in the Prometheus text format 0.0.4, as `registry.metrics()` writes it, but a metric at a time and a
 * few lines at a time, yielding between turns, in encoded chunks: `registry.metrics()` collects every metric
 * concurrently and writes all of them in one turn of the event loop. The registry has no default labels and is not
 * in OpenMetrics mode.
 */
export async function expositionChunks(
  registry: Registry,
  budget: TurnBudget,
  /** Metrics, by name, whose lines a writer of their own makes (the capped families: 1,001 values each). */
  writers: ReadonlyMap<string, LineWriter> = new Map(),
): Promise<Buffer[]> {
  const text = new ExpositionText();
  let first = true;
  // The registry holds the metric objects themselves, typed as their descriptions.
  for (const metric of registry.getMetricsAsArray() as unknown as Readable[]) {
    await budget.yield();
    const separator = first ? '' : '\n\n';
    first = false;
    const { name, help, type } = metric as unknown as { name: string; help: string; type: string };
    const writer = writers.get(name);
    if (writer) {
      text.add(`${separator}${header(name, help, type)}`);
      await writer(text, budget);
      continue;
    }
    if (writableInTurns(metric)) {
      text.add(`${separator}${header(name, help, type)}`);
      await writeHistogramLines(metric, text, budget);
      continue;
    }
    const { values } = await metric.get();
    text.add(`${separator}${header(name, help, type)}`);
    for (const value of values) {
      const pause = budget.spend();
      if (pause) await pause;
      text.add(`\n${line(value.metricName ?? name, value.labels, value.value)}`);
    }
  }
  text.add('\n');
  return text.chunks();
}

interface Readable {
  get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>>;
}

function header(name: string, help: string, type: string | number): string {
  return `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${type}`;
}

import type { MetricObjectWithValues, MetricValueWithName, Registry } from 'prom-client';
import { TurnBudget } from './turn-budget';

/**
 * The registry in the Prometheus text format 0.0.4, as `registry.metrics()` writes it, but a metric at a time and a
 * few lines at a time, yielding between turns: `registry.metrics()` collects every metric concurrently and writes
 * all of them in one turn of the event loop. The registry has no default labels and is not in OpenMetrics mode.
 */
export async function incrementalExposition(registry: Registry, budget: TurnBudget): Promise<string> {
  const metrics: string[] = [];
  // The registry holds the metric objects themselves, typed as their descriptions.
  for (const metric of registry.getMetricsAsArray() as unknown as Readable[]) {
    await budget.yield();
    const { name, help, type, values } = await metric.get();
    const lines = [`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`];
    for (const value of values) {
      const pause = budget.spend();
      if (pause) await pause;
      lines.push(line(value.metricName ?? name, value.labels, value.value));
    }
    metrics.push(lines.join('\n'));
  }
  return `${metrics.join('\n\n')}\n`;
}

interface Readable {
  get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>>;
}

function line(name: string, labels: object, value: number): string {
  const pairs = Object.entries(labels)
    .filter(([, label]) => label !== undefined)
    .map(([label, text]) => `${label}="${escapeLabelValue(String(text))}"`);
  return `${name}${pairs.length > 0 ? `{${pairs.join(',')}}` : ''} ${valueText(value)}`;
}

function valueText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value < 0 ? '-Inf' : '+Inf';
  return `${value}`;
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function escapeLabelValue(text: string): string {
  return escapeHelp(text).replace(/"/g, '\\"');
}

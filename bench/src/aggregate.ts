import type { BenchResults, SystemInfo } from './runner';
import { median, minMax } from './stats';
import type { MetricDef } from './workloads/workload';

export interface Aggregate {
  median: number;
  min: number;
  max: number;
  /** Rounds that produced this figure. */
  rounds: number;
}

export function aggregate(results: BenchResults, workload: string, system: string, metric: string): Aggregate {
  const values = results.runs
    .filter((r) => r.workload === workload && r.system === system && !r.error)
    .map((r) => r.metrics[metric])
    .filter((v) => v !== undefined && Number.isFinite(v));
  const [min, max] = minMax(values);
  return { median: median(values), min, max, rounds: values.length };
}

export interface Best {
  system: SystemInfo;
  value: number;
}

/** The best median of `metric` among the systems `include` accepts. */
export function best(results: BenchResults, workload: string, metric: MetricDef, include: (s: SystemInfo) => boolean): Best | undefined {
  let found: Best | undefined;
  for (const system of results.systems.filter(include)) {
    const value = aggregate(results, workload, system.id, metric.key).median;
    if (!Number.isFinite(value)) continue;
    const better = !found || (metric.better === 'higher' ? value > found.value : value < found.value);
    if (better) found = { system, value };
  }
  return found;
}

export const isDurablePeer = (s: SystemInfo) => s.kind === 'durable-peer';
export const isPeer = (s: SystemInfo) => s.kind === 'peer' || s.kind === 'durable-peer';

export const mmmqOf = (results: BenchResults) => results.systems.find((s) => s.kind === 'mmmq');

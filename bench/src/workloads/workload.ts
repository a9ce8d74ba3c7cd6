import type { BenchConfig } from '../config';
import type { SampledUsage } from '../sampler';
import type { System, TopicPlan } from '../systems/system';

export interface MetricDef {
  key: string;
  label: string;
  unit: string;
  better: 'higher' | 'lower';
  /** false for a figure that is not a performance (how many messages a capped drain got through). */
  ratio?: boolean;
}

export interface RoundContext {
  config: BenchConfig;
  round: number;
  /** A topic plan whose names are unique to this round and system. */
  plan(topics: number, groups: number): TopicPlan;
  /**
   * Start and stop broker sampling around the measured phase (the runner samples the whole run otherwise).
   * Await both: for a workload that counts fsyncs they read the broker's counters (one HTTP request each).
   * `stopSampling` resolves to what was measured (undefined when sampling had not started or had stopped already).
   * `processes`: the pids to sample instead of `system.brokerPids()` (the process the round's figures are about).
   */
  startSampling(processes?: () => number[]): Promise<void>;
  stopSampling(): Promise<SampledUsage | undefined>;
}

export interface RoundOutcome {
  metrics: Record<string, number>;
  /**
   * Messages the measured phase carried (each published once; a fan-out's deliveries count once): the runner divides
   * the sampled CPU time by it for the CPU per message. Absent: no CPU per message for the round.
   */
  messages?: number;
  /** Something the reader must know about this round (timed out, lost or duplicate messages). */
  note?: string;
}

export interface Workload {
  id: string;
  /** Heading in the report and the chart; may quote the configured rate or window. */
  title(config: BenchConfig): string;
  /** What is measured and how, for the report; may quote the configured sizes. */
  describe(config: BenchConfig): string;
  metrics: MetricDef[];
  /** The metric the ratio and the chart use. */
  headline: string;
  /** `true`, or why this system cannot run the workload. */
  applies(system: System): true | string;
  /** Measures publishing only (no consumer): also run by a system that is `publishOnly`. */
  measuresPublishing?: boolean;
  run(system: System, ctx: RoundContext): Promise<RoundOutcome>;
  /** Read the broker's fsync counters before and after the measured phase (MMMQ only, see `FSYNCS`). */
  countsFsyncs?: boolean;
  /** Longest a round may take before the runner gives up on it; default 3 × the round timeout. */
  hardLimitSeconds?(config: BenchConfig): number;
}

/**
 * `workload.applies(system)`, unless the system skips the workload (`System.skips`), and a `publishOnly` system only
 * where the workload measures publishing.
 */
export function appliesTo(workload: Workload, system: System): true | string {
  const skipped = system.skips?.[workload.id];
  if (skipped !== undefined) return skipped;
  if (system.onlyWorkloads && !system.onlyWorkloads.ids.includes(workload.id)) return system.onlyWorkloads.why;
  if (system.publishOnly !== undefined && !workload.measuresPublishing) return system.publishOnly;
  return workload.applies(system);
}

export const RATE = (label = 'msgs/s'): MetricDef => ({ key: 'rate', label, unit: '/s', better: 'higher' });
export const P50: MetricDef = { key: 'p50', label: 'p50', unit: 'ms', better: 'lower' };
export const P99: MetricDef = { key: 'p99', label: 'p99', unit: 'ms', better: 'lower' };
export const MAX: MetricDef = { key: 'max', label: 'max', unit: 'ms', better: 'lower' };
/** Broker fsyncs per second over the measured phase, from the broker's own counters; not a performance. */
export const FSYNCS: MetricDef = { key: 'fsyncRate', label: 'broker fsyncs/s', unit: '/s', better: 'lower', ratio: false };
/** Deliveries beyond the first of a message; not a performance. */
export const DUPLICATES: MetricDef = { key: 'duplicates', label: 'duplicates', unit: '', better: 'lower', ratio: false };
/** The share of the messages the busiest of several competing consumers handled; not a performance. */
export const BUSIEST: MetricDef = { key: 'busiest', label: 'busiest member', unit: '%', better: 'lower', ratio: false };

/** `BUSIEST` from the messages each member handled: 100 / members = even. */
export function busiestShare(perMember: number[]): number {
  const total = perMember.reduce((a, b) => a + b, 0);
  return total === 0 ? NaN : (100 * Math.max(...perMember)) / total;
}

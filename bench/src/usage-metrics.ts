import type { SampledUsage } from './sampler';
import type { MetricDef } from './workloads/workload';

/**
 * Measured by the runner around every round's measured phase, beside each workload's own metrics. The CPU per message
 * comes first: it moves much less than a rate when other work shares the machine's cores, so it is the budget to watch.
 */
export const USAGE_METRICS: MetricDef[] = [
  { key: 'brokerCpuUs', label: 'broker CPU/msg', unit: 'µs', better: 'lower' },
  { key: 'clientCpuUs', label: 'client CPU/msg', unit: 'µs', better: 'lower' },
  { key: 'brokerCpu', label: 'broker CPU', unit: '%', better: 'lower' },
  { key: 'brokerRss', label: 'broker RSS', unit: 'MiB', better: 'lower' },
  { key: 'clientCpu', label: 'client CPU', unit: '%', better: 'lower' },
];

/** The usage figures about the server process, which a reference without one cannot give. */
export const BROKER_USAGE = ['brokerCpuUs', 'brokerCpu', 'brokerRss'];

/**
 * A round's usage figures from what the sampler measured. CPU per message (µs) = CPU time over the measured phase ÷
 * the messages it carried; a workload that works them out itself (over parts of its round) keeps its own.
 */
export function usageFigures(usage: SampledUsage, messages: number | undefined, own: Record<string, number>): Record<string, number> {
  const perMessage = (seconds: number) => (messages && messages > 0 ? (seconds * 1e6) / messages : NaN);
  return {
    brokerCpu: usage.broker.cpuPct,
    brokerRss: usage.broker.rssPeakMiB,
    clientCpu: usage.clientCpuPct,
    brokerCpuSeconds: usage.broker.cpuSeconds,
    clientCpuSeconds: usage.clientCpuSeconds,
    othersCpu: usage.othersCpuPct,
    brokerCpuUs: own.brokerCpuUs ?? perMessage(usage.broker.cpuSeconds),
    clientCpuUs: own.clientCpuUs ?? perMessage(usage.clientCpuSeconds),
  };
}

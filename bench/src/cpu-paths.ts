import { parseBenchArgs, type BenchConfig } from './config';

/** One hot path of `pnpm bench:cpu`: which workload's round, on which system, and which CPU-per-message figure. */
export interface CpuPath {
  id: string;
  label: string;
  workload: string;
  system: string;
  /** A metric key of the round: `brokerCpuUs`, `clientCpuUs`, or the embedded workload's per-phase figures. */
  metric: string;
  /** The workload metric shown beside it for context (a rate), never compared. */
  rate: string;
  /**
   * Not MMMQ: a yardstick of the machine. If it rose as much as MMMQ's paths, the machine got slower or busier, not MMMQ.
   */
  yardstick?: boolean;
}

export const CPU_PATHS: CpuPath[] = [
  {
    id: 'http-publish',
    label: 'plain HTTP publish, 64 connections one at a time — broker',
    workload: 'http-publishers',
    system: 'mmmq',
    metric: 'brokerCpuUs',
    rate: 'rate',
  },
  {
    id: 'produce-one',
    label: 'confirmed produce one at a time (publish stream) — broker',
    workload: 'publish-one',
    system: 'mmmq',
    metric: 'brokerCpuUs',
    rate: 'rate',
  },
  {
    id: 'e2e',
    label: 'e2e at saturation, @mmmq producer + consumer — broker',
    workload: 'e2e-saturation',
    system: 'mmmq',
    metric: 'brokerCpuUs',
    rate: 'rate',
  },
  {
    id: 'e2e-clients',
    label: 'e2e at saturation — client process (@mmmq/producer, @mmmq/consumer)',
    workload: 'e2e-saturation',
    system: 'mmmq',
    metric: 'clientCpuUs',
    rate: 'rate',
  },
  {
    id: 'pull-100',
    label: 'pull, fetch 100 / ack the batch — broker',
    workload: 'pull-100',
    system: 'mmmq',
    metric: 'brokerCpuUs',
    rate: 'rate',
  },
  {
    id: 'push-one',
    label: 'one-message push to a plain HTTP consumer — broker',
    workload: 'plain-consumer',
    system: 'mmmq',
    metric: 'brokerCpuUs',
    rate: 'rate',
  },
  {
    id: 'embedded-e2e',
    label: 'embedded one app, e2e at saturation — app process',
    workload: 'embedded',
    system: 'mmmq',
    metric: 'cpuUs',
    rate: 'rate',
  },
  {
    id: 'embedded-produce',
    label: 'embedded one app, produce one at a time — app process',
    workload: 'embedded',
    system: 'mmmq',
    metric: 'produceCpuUs',
    rate: 'produceRate',
  },
  {
    id: 'node-http',
    label: 'yardstick: bare node:http server, same 64 publishers — server',
    workload: 'http-publishers',
    system: 'node-http',
    metric: 'brokerCpuUs',
    rate: 'rate',
    yardstick: true,
  },
];

/**
 * Sizes for short rounds: each path's measured phase takes a few seconds, long enough that a 10 ms CPU tick is under
 * 1 % of it. The plain consumer and the embedded fixed-rate phase run at 1,000 msg/s, which one-message pushes keep up
 * with on this machine unless other work fills both cores, so each published message is also pushed while sampled.
 */
export function cpuBenchConfig(rounds: number): BenchConfig {
  return parseBenchArgs([
    `--rounds=${rounds}`,
    '--publish-one=4000',
    '--http-messages=16000',
    '--e2e=30000',
    '--pull=16000',
    '--rate=1000',
    '--plain-seconds=5',
    '--rate-seconds=2',
    '--round-timeout-seconds=60',
  ]);
}

import os from 'node:os';
import type { BenchConfig } from './config';
import { FsyncMeter } from './fsync-meter';
import { ProcessSampler, type SampledUsage } from './sampler';
import { commandOutput, ensureNats, ensureRabbitMq, log, removeTempRoot, sleep, stopAll } from './services';
import type { System, SystemKind } from './systems/system';
import { BROKER_USAGE, usageFigures } from './usage-metrics';
import { appliesTo, type MetricDef, type RoundContext, type Workload } from './workloads/workload';

export { USAGE_METRICS } from './usage-metrics';

export interface RunRecord {
  workload: string;
  system: string;
  round: number;
  metrics: Record<string, number>;
  note?: string;
  error?: string;
  /** metric key → why this round has no such figure (the broker does not count fsyncs); shown as "n/a". */
  unmeasured?: Record<string, string>;
}

export interface SystemInfo {
  id: string;
  label: string;
  kind: SystemKind;
  description: string;
  version: string;
  restart: string;
  /** Why the system took no part at all (it could not start). */
  unavailable?: string;
}

export interface WorkloadInfo {
  id: string;
  title: string;
  description: string;
  metrics: MetricDef[];
  headline: string;
  /** system id → why it does not run this workload. */
  notApplicable: Record<string, string>;
}

export interface BenchResults {
  startedAt: string;
  finishedAt: string;
  seconds: number;
  config: BenchConfig;
  machine: Record<string, string>;
  systems: SystemInfo[];
  workloads: WorkloadInfo[];
  runs: RunRecord[];
}

async function machineInfo(loadAtStart: string): Promise<Record<string, string>> {
  const cpus = os.cpus();
  return {
    cpu: `${cpus.length} × ${cpus[0]?.model ?? 'unknown'}`,
    memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    'load average (1, 5, 15 min) at start / end': `${loadAtStart} / ${loadAverage()}`,
    'temp dir (MMMQ and Redis data)': `${os.tmpdir()} on ${await commandOutput('df', ['--output=source,fstype', os.tmpdir()]).then((s) => s.split('\n').slice(1).join(' ').replace(/\s+/g, ' '))}`,
  };
}

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/**
 * Runs every workload against every system, `config.rounds` times. `onRound` gets the results so far after
 * each round (to save them: a long run that is interrupted keeps what it measured).
 */
export async function runBench(
  config: BenchConfig,
  workloads: Workload[],
  systems: System[],
  onRound: (partial: BenchResults) => void = () => undefined,
): Promise<BenchResults> {
  const started = new Date();
  const loadAtStart = loadAverage();
  const runTag = started.getTime().toString(36);
  const runs: RunRecord[] = [];
  const infos: SystemInfo[] = [];
  const live: System[] = [];
  try {
    const needs = new Set(systems.map((s) => s.id));
    if ([...needs].some((id) => id.includes('rabbitmq'))) await ensureRabbitMq().catch((e: Error) => log(`RabbitMQ: ${e.message}`));
    if (needs.has('nats-jetstream')) await ensureNats().catch((e: Error) => log(`NATS: ${e.message}`));
    for (const system of systems) {
      const info: SystemInfo = {
        id: system.id,
        label: system.label,
        kind: system.kind,
        description: system.description,
        version: await system.version(),
        restart: typeof system.restart === 'string' ? `n/a: ${system.restart}` : system.restart.how,
      };
      try {
        log(`starting ${system.label}`);
        await system.start();
        live.push(system);
      } catch (error) {
        info.unavailable = (error as Error).message;
        log(`${system.label} is unavailable: ${info.unavailable}`);
      }
      infos.push(info);
    }

    const workloadInfos: WorkloadInfo[] = workloads.map((w) => ({
      id: w.id,
      title: w.title(config),
      description: w.describe(config),
      metrics: w.metrics,
      headline: w.headline,
      notApplicable: Object.fromEntries(
        systems.flatMap((s) => {
          const applies = appliesTo(w, s);
          return applies === true ? [] : [[s.id, applies]];
        }),
      ),
    }));

    const snapshot = async (): Promise<BenchResults> => {
      const now = new Date();
      return {
        startedAt: started.toISOString(),
        finishedAt: now.toISOString(),
        seconds: (now.getTime() - started.getTime()) / 1000,
        config,
        machine: await machineInfo(loadAtStart),
        systems: infos,
        workloads: workloadInfos,
        runs,
      };
    };

    for (const workload of workloads) {
      log(`== ${workload.title(config)}`);
      for (let round = 1; round <= config.rounds; round++) {
        // Rotate the order each round so no system always runs first (or right after the heaviest one).
        const order = live.map((_, i) => live[(i + round - 1) % live.length]);
        for (const system of order) {
          if (appliesTo(workload, system) !== true) continue;
          const record = await runRound(config, workload, system, round, runTag);
          runs.push(record);
          const shown = workload.metrics
            .map((m) => `${m.label} ${format(record.metrics[m.key], m.unit)}`)
            .concat(
              `broker CPU ${format(record.metrics.brokerCpu, '%')} (${format(record.metrics.brokerCpuSeconds, 's')} s, ${format(record.metrics.brokerCpuUs, 'µs')} µs/msg)`,
              `client CPU ${format(record.metrics.clientCpuSeconds, 's')} s (${format(record.metrics.clientCpuUs, 'µs')} µs/msg)`,
              `RSS ${format(record.metrics.brokerRss, 'MiB')}`,
              `other processes ${format(record.metrics.othersCpu, '%')}`,
            );
          log(
            `  round ${round} ${system.label}: ${shown.join(', ')}${record.note ? ` (${record.note})` : ''}${record.error ? ` FAILED: ${record.error}` : ''}`,
          );
          onRound(await snapshot());
          await sleep(config.quick ? 200 : 1000);
        }
      }
    }
    return await snapshot();
  } finally {
    for (const system of live) await system.stop().catch((e: Error) => log(`stopping ${system.label}: ${e.message}`));
    await stopAll();
    removeTempRoot();
  }
}

async function runRound(config: BenchConfig, workload: Workload, system: System, round: number, runTag: string): Promise<RunRecord> {
  // The workload may name the process its figures are about (the embedded workload's app); the broker's otherwise.
  let sampled = () => system.brokerPids();
  const sampler = new ProcessSampler(() => sampled());
  const fsyncs = workload.countsFsyncs ? new FsyncMeter(system) : undefined;
  let sampling: 'before' | 'running' | 'done' = 'before';
  let usage: SampledUsage | undefined;
  const ctx: RoundContext = {
    config,
    round,
    plan: (topics, groups) => {
      const prefix = `bench-${runTag}-${workload.id}-${system.id}-r${round}`;
      return {
        prefix,
        topics: Array.from({ length: topics }, (_, i) => `${prefix}.t${i}`),
        groups: Array.from({ length: groups }, (_, i) => `g${i}`),
      };
    },
    startSampling: async (processes) => {
      if (sampling !== 'before') return;
      sampling = 'running';
      if (processes) sampled = processes;
      await fsyncs?.start();
      sampler.start();
    },
    stopSampling: async () => {
      if (sampling !== 'running') return undefined;
      sampling = 'done';
      usage = sampler.stop();
      await fsyncs?.stop();
      return usage;
    },
  };
  const record: RunRecord = { workload: workload.id, system: system.id, round, metrics: {} };
  let messages: number | undefined;
  const hardLimitMs = (workload.hardLimitSeconds?.(config) ?? config.roundTimeoutSeconds * 3) * 1000;
  let timer: NodeJS.Timeout | undefined;
  try {
    // Workloads bound their own waits; this only stops a hung client call from hanging the whole run.
    const outcome = await Promise.race([
      workload.run(system, ctx),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`round gave no result within ${hardLimitMs / 1000} s`)), hardLimitMs);
      }),
    ]);
    record.metrics = { ...outcome.metrics };
    record.note = outcome.note;
    messages = outcome.messages;
  } catch (error) {
    record.error = (error as Error).message.split('\n')[0];
  } finally {
    clearTimeout(timer);
  }
  await ctx.stopSampling().catch((error: Error) => log(`  ${system.label}: reading fsync counters: ${error.message}`));
  if (usage) {
    Object.assign(record.metrics, usageFigures(usage, messages, record.metrics));
    // A reference without a server process (the bare fdatasync loop): its broker figures are "n/a", not missing.
    if (Number.isNaN(usage.broker.cpuSeconds))
      record.unmeasured = Object.fromEntries(BROKER_USAGE.map((key) => [key, 'no server process']));
  }
  if (fsyncs && !record.error) {
    const { metrics, unmeasured } = fsyncs.result();
    Object.assign(record.metrics, metrics);
    if (unmeasured) record.unmeasured = { ...record.unmeasured, fsyncRate: unmeasured };
  }
  return record;
}

export function format(value: number | undefined, unit: string): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  if (unit === 'ms') return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
  if (unit === '%') return `${value.toFixed(0)} %`;
  if (unit === 'MiB') return `${value.toFixed(0)} MiB`;
  if (unit === 'MiB/s') return value.toFixed(1);
  if (unit === 's') return value.toFixed(2);
  if (unit === 'µs') return value >= 10 ? Math.round(value).toLocaleString('en') : value.toFixed(1);
  return Math.round(value).toLocaleString('en');
}

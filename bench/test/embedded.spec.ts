import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseBenchArgs } from '../src/config';
import { EMBEDDED_E2E_RATIO, EMBEDDED_PRODUCE_VS_FDATASYNC, embeddedTargets } from '../src/embedded-report';
import { fdatasyncLoop } from '../src/fdatasync-loop';
import type { BenchResults, RunRecord, SystemInfo } from '../src/runner';
import { createSystems } from '../src/systems';
import { targets } from '../src/targets';
import { WORKLOADS } from '../src/workloads';
import { embedded } from '../src/workloads/embedded';
import { EMBEDDED_PHASES, embeddedPattern, embeddedTopic, phaseMessages } from '../src/workloads/embedded-phases';
import { appliesTo } from '../src/workloads/workload';

const E2E = /end to end at saturation ≥ 3× the best durable peer/;
const PRODUCE =
  /confirmed produce one at a time ≥ 0\.8× a bare fdatasync loop \(1 KiB write \+ fdatasync, preallocated: the physical limit\)/;
const P99 = /end to end at 5,000 msg\/s: p99 ≤ the best durable peer's p99/;

function system(id: string, kind: SystemInfo['kind'], label = id): SystemInfo {
  return { id, label, kind, description: '', version: '', restart: '' };
}

type Run = Omit<RunRecord, 'workload' | 'round'>;

function results(runs: Run[], notApplicable: Record<string, string> = {}): BenchResults {
  const config = parseBenchArgs(['--quick']);
  return {
    startedAt: '',
    finishedAt: '',
    seconds: 0,
    config,
    machine: {},
    systems: [
      system('mmmq', 'mmmq', 'MMMQ'),
      system('rabbitmq-quorum', 'durable-peer', 'RabbitMQ quorum'),
      system('redis-always', 'durable-peer', 'Redis Streams always'),
      system('nats-jetstream', 'peer', 'NATS JetStream'),
    ],
    workloads: [
      { id: embedded.id, title: embedded.title(config), description: '', metrics: embedded.metrics, headline: 'rate', notApplicable },
    ],
    runs: runs.map((run) => ({ ...run, workload: embedded.id, round: 1 })),
  };
}

const MMMQ = {
  rate: 30_000,
  cpuUs: 40,
  produceRate: 400,
  produceCpuUs: 300,
  fixedP99: 4,
  fixedCpuUs: 60,
  fdatasyncRate: 450,
  fdatasyncAppendRate: 200,
};
const QUORUM = { rate: 8_000, cpuUs: 120, produceRate: 300, produceCpuUs: 500, fixedP99: 9, fixedCpuUs: 150 };
const REDIS = { rate: 9_000, cpuUs: 30, produceRate: 350, produceCpuUs: 50, fixedP99: 6, fixedCpuUs: 35 };
// Not durable: never the comparison, however fast.
const NATS = { rate: 90_000, cpuUs: 5, produceRate: 5_000, produceCpuUs: 5, fixedP99: 1, fixedCpuUs: 5 };

const row = (rows: ReturnType<typeof embeddedTargets>, pattern: RegExp) => rows.find((r) => pattern.test(r.target));

describe('the embedded workload', () => {
  it('runs on MMMQ (its one-app form) and every peer; not on MMMQ nonPersistent, MMMQ’s API on RabbitMQ or the no-broker reference', () => {
    const systems = createSystems();
    const applies = Object.fromEntries(systems.map((s) => [s.id, appliesTo(embedded, s)]));
    for (const id of ['mmmq', 'rabbitmq-classic', 'rabbitmq-quorum', 'redis-always', 'redis-everysec', 'nats-jetstream'])
      expect(applies[id]).toBe(true);
    for (const id of ['mmmq-np', 'mmmq-api-rabbitmq', 'mmmq-api-rabbitmq-p1000', 'no-broker'])
      expect(applies[id]).toEqual(expect.any(String));
    // Only MMMQ brings an app of its own (the nonPersistent variant runs publish workloads only); the peers use their clients.
    expect(systems.filter((s) => s.startEmbeddedApp).map((s) => s.id)).toEqual(['mmmq', 'mmmq-np']);
    expect(WORKLOADS.map((w) => w.id)).toContain('embedded');
    expect(WORKLOADS.at(-1)!.id).toBe('backlog-restart');
  });

  it('publishes as many messages per phase as publish-one, e2e-saturation and e2e-fixed-rate', () => {
    const config = parseBenchArgs(['--publish-one=7', '--e2e=11', '--rate=13', '--rate-seconds=2']);
    expect(EMBEDDED_PHASES.map((phase) => phaseMessages(phase, config))).toEqual([7, 11, 26]);
  });

  it('subscribes the app’s listener to the end-to-end phases only: the one-at-a-time produce has no consumer', () => {
    const prefix = 'bench-x-embedded-mmmq-r1';
    const pattern = embeddedPattern(prefix).replace(/\*$/, '');
    expect(embeddedTopic(prefix, 'saturation').startsWith(pattern)).toBe(true);
    expect(embeddedTopic(prefix, 'fixed-rate').startsWith(pattern)).toBe(true);
    expect(embeddedTopic(prefix, 'produce').startsWith(pattern)).toBe(false);
  });

  it('compares end to end and p99 with the best durable peer, the CPU per message beside each', () => {
    const rows = embeddedTargets(
      results([
        { system: 'mmmq', metrics: MMMQ },
        { system: 'rabbitmq-quorum', metrics: QUORUM },
        { system: 'redis-always', metrics: REDIS },
        { system: 'nats-jetstream', metrics: NATS },
      ]),
    );
    expect(rows).toHaveLength(3);
    expect(row(rows, E2E)).toEqual({
      target: expect.stringMatching(E2E),
      measured: 'MMMQ one app 30,000/s (app CPU 40 µs/msg) vs Redis Streams always 9,000/s (server CPU 30 µs/msg): 3.33×',
      met: true,
    });
    expect(row(rows, P99)).toEqual({
      target: expect.stringMatching(P99),
      measured: 'MMMQ one app 4.00 ms (app CPU 60 µs/msg) vs Redis Streams always 6.00 ms (server CPU 35 µs/msg): 0.67×',
      met: true,
    });
  });

  it('compares the one-at-a-time produce with the fdatasync loop of the same round, not with a peer', () => {
    const rows = embeddedTargets(results([{ system: 'mmmq', metrics: MMMQ }]));
    expect(row(rows, PRODUCE)).toEqual({
      target: expect.stringMatching(PRODUCE),
      measured: 'MMMQ one app 400/s (app CPU 300 µs/msg) vs fdatasync loop 450/s: 0.89× (appending: 200/s, 2.00×)',
      met: true,
    });
    // Without peers the other two have no verdict.
    expect(row(rows, E2E)).toMatchObject({ measured: 'no result', met: undefined });
    expect(row(rows, P99)).toMatchObject({ measured: 'no result', met: undefined });
  });

  it('meets each target at its bound exactly and misses it just past', () => {
    const at = (mmmq: Partial<typeof MMMQ>) =>
      embeddedTargets(
        results([
          { system: 'mmmq', metrics: { ...MMMQ, ...mmmq } },
          { system: 'redis-always', metrics: REDIS },
        ]),
      );
    const exact = at({
      rate: REDIS.rate * EMBEDDED_E2E_RATIO,
      produceRate: MMMQ.fdatasyncRate * EMBEDDED_PRODUCE_VS_FDATASYNC,
      fixedP99: REDIS.fixedP99,
    });
    expect([row(exact, E2E)?.met, row(exact, PRODUCE)?.met, row(exact, P99)?.met]).toEqual([true, true, true]);
    const past = at({
      rate: REDIS.rate * EMBEDDED_E2E_RATIO - 1,
      produceRate: MMMQ.fdatasyncRate * EMBEDDED_PRODUCE_VS_FDATASYNC - 1,
      fixedP99: REDIS.fixedP99 + 0.01,
    });
    expect([row(past, E2E)?.met, row(past, PRODUCE)?.met, row(past, P99)?.met]).toEqual([false, false, false]);
  });

  it('gives no rows when the workload did not run for MMMQ, and no verdict when MMMQ’s round failed', () => {
    expect(embeddedTargets({ ...results([]), workloads: [] })).toEqual([]);
    expect(embeddedTargets(results([], { mmmq: 'not in this run' }))).toEqual([]);
    const failed = embeddedTargets(
      results([
        { system: 'mmmq', metrics: {}, error: 'the embedded app exited (SIGKILL)' },
        { system: 'redis-always', metrics: REDIS },
      ]),
    );
    expect(failed.map((r) => r.met)).toEqual([undefined, undefined, undefined]);
    // The report's target table carries the same rows.
    expect(targets(results([{ system: 'mmmq', metrics: MMMQ }])).filter((r) => /^one Nest app/.test(r.target))).toHaveLength(3);
  });

  it.each(['preallocated', 'append'] as const)('times a bare fdatasync loop (%s) in a directory and leaves nothing behind', (kind) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-fdatasync-'));
    try {
      expect(fdatasyncLoop(dir, 5, 1024, kind)).toBeGreaterThan(0);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(existsSync(dir)).toBe(false);
  });
});

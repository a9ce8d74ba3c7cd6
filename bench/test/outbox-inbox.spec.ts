import { parseBenchArgs } from '../src/config';
import type { BenchResults, RunRecord, SystemInfo } from '../src/runner';
import { createSystems } from '../src/systems';
import { targets } from '../src/targets';
import { WORKLOADS } from '../src/workloads';
import { outboxInbox, roundSchema } from '../src/workloads/outbox-inbox';
import { appliesTo } from '../src/workloads/workload';

const TARGET = /outbox → relay → broker → consumer with inbox ≥ 1\.5× the same pattern on RabbitMQ/;

function system(id: string, kind: SystemInfo['kind'], label = id): SystemInfo {
  return { id, label, kind, description: '', version: '', restart: '' };
}

function results(runs: Omit<RunRecord, 'workload' | 'round'>[]): BenchResults {
  const config = parseBenchArgs(['--quick']);
  return {
    startedAt: '',
    finishedAt: '',
    seconds: 0,
    config,
    machine: {},
    systems: [
      system('mmmq', 'mmmq', 'MMMQ'),
      system('rabbitmq-classic', 'durable-peer', 'RabbitMQ classic'),
      system('rabbitmq-quorum', 'durable-peer', 'RabbitMQ quorum'),
      system('redis-always', 'durable-peer', 'Redis Streams always'),
    ],
    workloads: [
      {
        id: outboxInbox.id,
        title: outboxInbox.title(config),
        description: '',
        metrics: outboxInbox.metrics,
        headline: outboxInbox.headline,
        notApplicable: {},
      },
    ],
    runs: runs.map((run) => ({ ...run, workload: outboxInbox.id, round: 1 })),
  };
}

describe('the outbox → inbox workload (issue 17)', () => {
  it('runs on MMMQ and both RabbitMQ queue types, and tells every other system why not', () => {
    const applies = Object.fromEntries(createSystems().map((s) => [s.id, appliesTo(outboxInbox, s)]));
    expect(applies).toMatchObject({ mmmq: true, 'rabbitmq-classic': true, 'rabbitmq-quorum': true });
    for (const id of ['mmmq-np', 'redis-always', 'redis-everysec', 'nats-jetstream']) expect(applies[id]).toEqual(expect.any(String));
    expect(WORKLOADS.map((w) => w.id)).toContain('outbox-inbox');
    expect(WORKLOADS.at(-1)!.id).toBe('backlog-restart');
  });

  it('takes its message count and writer concurrency from the command line, 20,000 and 16 in a full run', () => {
    expect(parseBenchArgs([])).toMatchObject({ outboxMessages: 20_000, outboxWriters: 16 });
    expect(parseBenchArgs(['--quick'])).toMatchObject({ outboxMessages: 2_000, outboxWriters: 16 });
    expect(parseBenchArgs(['--outbox-messages=500', '--outbox-writers=4'])).toMatchObject({ outboxMessages: 500, outboxWriters: 4 });
  });

  it('runs the writers on the bench’s event loop unless --outbox-writers-thread moves them to a thread of their own', () => {
    expect(parseBenchArgs(['--quick']).outboxWritersThread).toBe(false);
    expect(parseBenchArgs(['--quick', '--outbox-writers-thread']).outboxWritersThread).toBe(true);
  });

  it('puts each round in a PostgreSQL schema named from its unique prefix', () => {
    expect(roundSchema('bench-mh3x2k-outbox-inbox-rabbitmq-quorum-r12')).toBe('bench_mh3x2k_outbox_inbox_rabbitmq_quorum_r12');
  });

  it('compares MMMQ with the faster RabbitMQ pattern only, and reports both p99s', () => {
    const rows = targets(
      results([
        { system: 'mmmq', metrics: { rate: 3000, p99: 40 } },
        { system: 'rabbitmq-classic', metrics: { rate: 1000, p99: 90 } },
        { system: 'rabbitmq-quorum', metrics: { rate: 1900, p99: 70 } },
        // Redis never runs this workload; a figure of it must not become the comparison.
        { system: 'redis-always', metrics: { rate: 9000, p99: 1 } },
      ]),
    );
    const row = rows.find((r) => TARGET.test(r.target));
    expect(row).toEqual({
      target: expect.stringMatching(TARGET),
      measured: 'MMMQ 3,000/s vs RabbitMQ quorum 1,900/s: 1.58×; p99 MMMQ 40.0 ms, RabbitMQ quorum 70.0 ms',
      met: true,
    });
  });

  it('is not met below 1.5×, and has no verdict without MMMQ figures', () => {
    const below = targets(
      results([
        { system: 'mmmq', metrics: { rate: 2000, p99: 40 } },
        { system: 'rabbitmq-quorum', metrics: { rate: 1900, p99: 70 } },
      ]),
    );
    expect(below.find((r) => TARGET.test(r.target))?.met).toBe(false);
    const failed = targets(
      results([
        { system: 'mmmq', metrics: {}, error: 'round gave no result' },
        { system: 'rabbitmq-quorum', metrics: { rate: 1900, p99: 70 } },
      ]),
    );
    expect(failed.find((r) => TARGET.test(r.target))).toMatchObject({ measured: 'no result', met: undefined });
  });
});

import { parseBenchArgs } from '../src/config';
import type { BenchResults, RunRecord, SystemInfo } from '../src/runner';
import { createSystems } from '../src/systems';
import { targets } from '../src/targets';
import { WORKLOADS } from '../src/workloads';
import { outboxInbox, roundSchema } from '../src/workloads/outbox-inbox';
import { appliesTo } from '../src/workloads/workload';

const TARGET = /outbox → relay → broker → consumer with inbox, a backlog drained ≥ 1\.5× the same pattern on RabbitMQ/;
const LIVE = /the same with the writers alongside \(not a target/;
const live = outboxInbox('live');
const backlog = outboxInbox('backlog');

function system(id: string, kind: SystemInfo['kind'], label = id): SystemInfo {
  return { id, label, kind, description: '', version: '', restart: '' };
}

type Run = Omit<RunRecord, 'workload' | 'round'>;

/** Results of both workloads: `drained` of the backlog one, `alongside` of the live one. */
function results(drained: Run[], alongside: Run[] = []): BenchResults {
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
    workloads: [live, backlog].map((w) => ({
      id: w.id,
      title: w.title(config),
      description: '',
      metrics: w.metrics,
      headline: w.headline,
      notApplicable: {},
    })),
    runs: [
      ...drained.map((run) => ({ ...run, workload: backlog.id, round: 1 })),
      ...alongside.map((run) => ({ ...run, workload: live.id, round: 1 })),
    ],
  };
}

describe('the outbox → inbox workloads', () => {
  it.each([live, backlog])(
    '$id runs on MMMQ, both RabbitMQ queue types and the no-broker reference, and tells every other system why not',
    (w) => {
      const applies = Object.fromEntries(createSystems().map((s) => [s.id, appliesTo(w, s)]));
      expect(applies).toMatchObject({ mmmq: true, 'rabbitmq-classic': true, 'rabbitmq-quorum': true, 'no-broker': true });
      for (const id of ['mmmq-np', 'redis-always', 'redis-everysec', 'nats-jetstream']) expect(applies[id]).toEqual(expect.any(String));
      expect(WORKLOADS.map((each) => each.id)).toContain(w.id);
      expect(WORKLOADS.at(-1)!.id).toBe('backlog-restart');
    },
  );

  it('says how each measures: the live one from the first business commit, the backlog one from the pipeline’s start', () => {
    const config = parseBenchArgs(['--quick']);
    expect(live.describe(config)).toContain('while the pipeline runs');
    expect(backlog.describe(config)).toContain('all committed before the pipeline starts');
    expect(backlog.describe(config)).toContain('`groupCommit`');
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

  it('compares the drained backlog with the faster RabbitMQ pattern only', () => {
    const rows = targets(
      results([
        { system: 'mmmq', metrics: { rate: 3000, p99: 40 } },
        { system: 'rabbitmq-classic', metrics: { rate: 1000, p99: 90 } },
        { system: 'rabbitmq-quorum', metrics: { rate: 1900, p99: 70 } },
        // Redis never runs this workload; a figure of it must not become the comparison.
        { system: 'redis-always', metrics: { rate: 9000, p99: 1 } },
      ]),
    );
    expect(rows.find((r) => TARGET.test(r.target))).toEqual({
      target: expect.stringMatching(TARGET),
      measured: 'MMMQ 3,000/s vs RabbitMQ quorum 1,900/s: 1.58×',
      met: true,
    });
  });

  it('reports the live workload without a verdict: both rates beside their writers’ rates, and both p99s', () => {
    const rows = targets(
      results(
        [],
        [
          { system: 'mmmq', metrics: { rate: 1200, p99: 400, writeRate: 1210 } },
          { system: 'rabbitmq-quorum', metrics: { rate: 1100, p99: 150, writeRate: 1105 } },
        ],
      ),
    );
    expect(rows.find((r) => LIVE.test(r.target))).toEqual({
      target: expect.stringMatching(LIVE),
      measured: 'MMMQ 1,200/s (writers 1,210/s, p99 400 ms) vs RabbitMQ quorum 1,100/s (writers 1,105/s, p99 150 ms)',
      met: undefined,
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

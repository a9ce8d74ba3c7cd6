import { parseBenchArgs } from '../src/config';
import type { BenchResults, RunRecord, SystemInfo } from '../src/runner';
import { createSystems } from '../src/systems';
import { targets } from '../src/targets';
import { WORKLOADS } from '../src/workloads';
import { requestReply } from '../src/workloads/request-reply';
import { appliesTo } from '../src/workloads/workload';

const RATE = /request-reply round trips\/s ≥ 1\.5× Nest's RMQ transport/;
const P99 = /request-reply p99 ≤ Nest's RMQ transport's/;

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
        id: requestReply.id,
        title: '',
        description: '',
        metrics: requestReply.metrics,
        headline: requestReply.headline,
        notApplicable: {},
      },
    ],
    runs: runs.map((run) => ({ ...run, workload: requestReply.id, round: 1 })),
  };
}

describe('the request-reply workload', () => {
  it('runs on MMMQ and on both RabbitMQ queue types (Nest’s RMQ transport), and tells every other system why not', () => {
    const applies = Object.fromEntries(createSystems().map((s) => [s.id, appliesTo(requestReply, s)]));
    expect(applies).toMatchObject({ mmmq: true, 'rabbitmq-classic': true, 'rabbitmq-quorum': true });
    for (const id of ['mmmq-np', 'mmmq-api-rabbitmq', 'redis-always', 'nats-jetstream', 'no-broker', 'node-http'])
      expect(applies[id]).toEqual(expect.any(String));
    expect(WORKLOADS.map((w) => w.id)).toContain(requestReply.id);
  });

  it('takes its requests and concurrency from the command line, 20,000 and 32 in a full run', () => {
    expect(parseBenchArgs([])).toMatchObject({ requests: 20_000, requestConcurrency: 32 });
    expect(parseBenchArgs(['--requests=500', '--request-concurrency=8'])).toMatchObject({ requests: 500, requestConcurrency: 8 });
  });

  it('compares MMMQ with the faster RabbitMQ row for the rate and the lower p99, not with other peers', () => {
    const rows = targets(
      results([
        { system: 'mmmq', metrics: { rate: 3_000, p99: 20 } },
        { system: 'rabbitmq-classic', metrics: { rate: 1_800, p99: 30 } },
        { system: 'rabbitmq-quorum', metrics: { rate: 1_600, p99: 25 } },
        { system: 'redis-always', metrics: { rate: 90_000, p99: 1 } },
      ]),
    );
    expect(rows.find((row) => RATE.test(row.target))).toEqual({
      target: expect.any(String),
      measured: 'MMMQ 3,000/s vs RabbitMQ classic 1,800/s: 1.67×',
      met: true,
    });
    expect(rows.find((row) => P99.test(row.target))).toMatchObject({
      measured: 'MMMQ 20.0 ms vs RabbitMQ quorum 25.0 ms: 0.80×',
      met: true,
    });
  });

  it('is missed below 1.5× the rate or above the p99', () => {
    const rows = targets(
      results([
        { system: 'mmmq', metrics: { rate: 400, p99: 238 } },
        { system: 'rabbitmq-classic', metrics: { rate: 1_862, p99: 72 } },
      ]),
    );
    expect(rows.filter((row) => RATE.test(row.target) || P99.test(row.target)).map((row) => row.met)).toEqual([false, false]);
  });
});

import { isDurablePeer, isPeer, mmmqOf } from '../src/aggregate';
import { parseBenchArgs } from '../src/config';
import { renderReport } from '../src/report';
import type { BenchResults, RunRecord, SystemInfo } from '../src/runner';
import { createSystems, selectSystems } from '../src/systems';
import { targets } from '../src/targets';
import { transportSection } from '../src/transport-report';
import { WORKLOADS } from '../src/workloads';
import { competing } from '../src/workloads/competing';
import { appliesTo } from '../src/workloads/workload';

const API = 'mmmq-api-rabbitmq';
const API_P1000 = 'mmmq-api-rabbitmq-p1000';

function info(id: string, kind: SystemInfo['kind'], label: string): SystemInfo {
  return { id, label, kind, description: '', version: '', restart: '' };
}

/** One competing-consumers round per system. */
function results(runs: Omit<RunRecord, 'workload' | 'round'>[]): BenchResults {
  const config = parseBenchArgs(['--quick']);
  return {
    startedAt: '2026-12-01T05:00:00.000Z',
    finishedAt: '',
    seconds: 60,
    config,
    machine: { cpu: '2 × test' },
    systems: [
      info('mmmq', 'mmmq', 'MMMQ'),
      info('rabbitmq-quorum', 'durable-peer', 'RabbitMQ quorum'),
      info(API, 'mmmq-transport', 'MMMQ API on RabbitMQ quorum'),
    ],
    workloads: [
      {
        id: competing.id,
        title: competing.title(config),
        description: '',
        metrics: competing.metrics,
        headline: competing.headline,
        notApplicable: {},
      },
    ],
    runs: runs.map((run) => ({ ...run, workload: competing.id, round: 1 })),
  };
}

describe('the MMMQ API on RabbitMQ quorum rows', () => {
  it('are listed after RabbitMQ quorum, with the default prefetch and with prefetch 1000, and selectable by id', () => {
    const ids = createSystems().map((s) => s.id);
    expect(ids.slice(ids.indexOf('rabbitmq-quorum'), ids.indexOf('rabbitmq-quorum') + 3)).toEqual(['rabbitmq-quorum', API, API_P1000]);
    expect(new Set(ids).size).toBe(ids.length);
    const { selected, unknown } = selectSystems([API, 'rabbitmq-quorum', 'mmmq-api-rabbit']);
    expect(selected.map((s) => [s.id, s.label, s.kind])).toEqual([
      ['rabbitmq-quorum', 'RabbitMQ quorum', 'durable-peer'],
      [API, 'MMMQ API on RabbitMQ quorum, default prefetch (100)', 'mmmq-transport'],
    ]);
    expect(unknown).toEqual(['mmmq-api-rabbit']);
    expect(selectSystems([]).selected.map((s) => s.id)).toEqual(ids);
    expect(parseBenchArgs([`--systems=${API},${API_P1000}`]).systems).toEqual([API, API_P1000]);
  });

  it('run the publish and end-to-end workloads, and say why not for the others', () => {
    for (const system of createSystems().filter((s) => s.kind === 'mmmq-transport')) {
      const applies = Object.fromEntries(WORKLOADS.map((w) => [w.id, appliesTo(w, system)]));
      for (const id of ['publish-one', 'publish-window', 'e2e-saturation', 'e2e-fixed-rate', 'fanout-3', 'competing-3']) {
        expect([id, applies[id]]).toEqual([id, true]);
      }
      for (const id of ['http-publishers', 'pull-100', 'plain-consumer', 'plain-consumer-3', 'outbox-inbox', 'backlog-restart']) {
        expect([id, applies[id]]).toEqual([id, expect.stringMatching(/.{10,}/)]);
      }
    }
  });

  it('never count as MMMQ nor as a peer, so the targets ignore even better figures', () => {
    const api = info(API, 'mmmq-transport', '');
    expect([isPeer(api), isDurablePeer(api)]).toEqual([false, false]);
    const withoutApi = results([
      { system: 'mmmq', metrics: { rate: 9000 } },
      { system: 'rabbitmq-quorum', metrics: { rate: 5000 } },
    ]);
    const withApi = results([...withoutApi.runs, { system: API, metrics: { rate: 50_000 } }]);
    expect(mmmqOf(withApi)?.id).toBe('mmmq');
    expect(targets(withApi)).toEqual(targets(withoutApi));
    expect(targets(withApi).find((r) => r.target.startsWith('competing consumers'))?.measured).toMatch(
      /vs RabbitMQ quorum 5,000\/s: 1\.80×/,
    );
  });

  it('get a table of their figures beside raw RabbitMQ quorum and MMMQ, with the ratios, and a bold row', () => {
    const run = results([
      { system: 'mmmq', metrics: { rate: 8000, p50: 100, p99: 400 } },
      { system: 'rabbitmq-quorum', metrics: { rate: 6000, p50: 80, p99: 200 } },
      { system: API, metrics: { rate: 3000, p50: 160, p99: 500 } },
    ]);
    const section = transportSection(run);
    expect(section[0]).toBe('## MMMQ API on RabbitMQ quorum');
    expect(section).toContain(
      '| MMMQ API on RabbitMQ quorum | Competing consumers: one queue, 3 consumers sharing it | msgs/s | 3,000 | 6,000 | 0.50× | 8,000 | 0.38× |',
    );
    expect(section).toContain(
      '| MMMQ API on RabbitMQ quorum | Competing consumers: one queue, 3 consumers sharing it | p99 | 500 ms | 200 ms | 2.50× | 400 ms | 1.25× |',
    );
    const report = renderReport(run, 'chart.svg');
    expect(report).toContain('| **MMMQ API on RabbitMQ quorum** | 3,000 |');
    expect(report).toContain('| MMMQ API on RabbitMQ quorum (not a peer) |');
  });

  it('leave the report without that table when they did not run', () => {
    const run = results([
      { system: 'mmmq', metrics: { rate: 8000 } },
      { system: 'rabbitmq-quorum', metrics: { rate: 6000 } },
    ]);
    expect(transportSection({ ...run, systems: run.systems.filter((s) => s.id !== API) })).toEqual([]);
  });
});

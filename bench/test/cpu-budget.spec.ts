import { compare, renderComparison, type CpuBaseline, type PathFigure } from '../src/cpu-baseline';
import { CPU_PATHS, cpuBenchConfig } from '../src/cpu-paths';
import { HTTP_CEILING_RATIO, httpCeilingTarget, NODE_HTTP } from '../src/http-ceiling-report';
import type { BenchResults, RunRecord, SystemInfo } from '../src/runner';
import type { SampledUsage } from '../src/sampler';
import { createSystems } from '../src/systems';
import { USAGE_METRICS, usageFigures } from '../src/usage-metrics';
import { WORKLOADS } from '../src/workloads';
import { appliesTo } from '../src/workloads/workload';

const usage = (brokerSeconds: number, clientSeconds: number): SampledUsage => ({
  broker: { cpuPct: 50, cpuSeconds: brokerSeconds, rssPeakMiB: 100, rssEndMiB: 90 },
  clientCpuPct: 20,
  clientCpuSeconds: clientSeconds,
  othersCpuPct: 5,
});

describe('CPU per message', () => {
  it('divides the CPU time of the measured phase by its messages, in µs', () => {
    const figures = usageFigures(usage(0.5, 0.2), 10_000, {});
    expect(figures.brokerCpuUs).toBeCloseTo(50);
    expect(figures.clientCpuUs).toBeCloseTo(20);
    expect(figures.brokerCpuSeconds).toBe(0.5);
  });

  it('keeps the figures a workload worked out itself, and gives none without a message count', () => {
    expect(usageFigures(usage(0.5, 0.2), 10_000, { brokerCpuUs: 7, clientCpuUs: 3 })).toMatchObject({ brokerCpuUs: 7, clientCpuUs: 3 });
    expect(usageFigures(usage(0.5, 0.2), undefined, {}).brokerCpuUs).toBeNaN();
  });

  it('is a column of every workload table, before the CPU shares', () => {
    expect(USAGE_METRICS.map((m) => m.key).slice(0, 2)).toEqual(['brokerCpuUs', 'clientCpuUs']);
  });
});

describe('the reference rows', () => {
  const systems = createSystems();
  const byId = (id: string) => systems.find((s) => s.id === id)!;

  it('runs the bare node:http server in the plain HTTP publishers only, and the bare fdatasync loop in publish-one only', () => {
    for (const w of WORKLOADS) {
      expect(appliesTo(w, byId(NODE_HTTP)) === true).toBe(w.id === 'http-publishers');
      expect(appliesTo(w, byId('fdatasync-loop')) === true).toBe(w.id === 'publish-one');
    }
  });

  function results(mmmqRate: number, ceilingRate: number): BenchResults {
    const system = (id: string, kind: SystemInfo['kind']): SystemInfo => ({
      id,
      label: id,
      kind,
      description: '',
      version: '',
      restart: '',
    });
    const run = (id: string, rate: number, brokerCpuUs: number): RunRecord => ({
      workload: 'http-publishers',
      system: id,
      round: 1,
      metrics: { rate, brokerCpuUs },
    });
    const w = WORKLOADS.find((x) => x.id === 'http-publishers')!;
    const config = cpuBenchConfig(1);
    return {
      startedAt: '',
      finishedAt: '',
      seconds: 0,
      config,
      machine: {},
      systems: [system('mmmq', 'mmmq'), system(NODE_HTTP, 'reference')],
      workloads: [{ id: w.id, title: w.title(config), description: '', metrics: w.metrics, headline: 'rate', notApplicable: {} }],
      runs: [run('mmmq', mmmqRate, 95), run(NODE_HTTP, ceilingRate, 38)],
    };
  }

  it('sets plain HTTP publish against the node:http ceiling, each server’s CPU per request beside', () => {
    const row = httpCeilingTarget(results(6_000, 10_000))!;
    expect(row.met).toBe(true);
    expect(row.measured).toBe('MMMQ 6,000/s (broker CPU 95 µs/msg) vs node:http 10,000/s (server CPU 38 µs/msg): 0.60×');
    expect(HTTP_CEILING_RATIO).toBe(0.6);
    expect(httpCeilingTarget(results(5_990, 10_000))!.met).toBe(false);
  });
});

describe('pnpm bench:cpu', () => {
  const figure = (us: number): PathFigure => ({ label: '', us, min: us, max: us, rounds: 3, rate: 1 });
  const baseline = (paths: Record<string, PathFigure>): CpuBaseline => ({
    takenAt: '2026-12-07T14:00:00.000Z',
    commit: 'abc1234',
    machine: { cpu: '2 × test' },
    config: { e2e: 30_000 },
    othersCpuPct: 10,
    paths,
  });

  it('measures each path on a workload and system the bench has, with a figure the round reports', () => {
    const systems = createSystems().map((s) => s.id);
    for (const p of CPU_PATHS) {
      const w = WORKLOADS.find((x) => x.id === p.workload);
      expect(w).toBeDefined();
      expect(systems).toContain(p.system);
      expect([...w!.metrics, ...USAGE_METRICS].map((m) => m.key)).toEqual(expect.arrayContaining([p.metric, p.rate]));
    }
    expect(CPU_PATHS.filter((p) => p.yardstick).map((p) => p.system)).toEqual([NODE_HTTP]);
  });

  it('flags a path 10 % or more above its baseline, and nothing below', () => {
    const [a, b, c] = CPU_PATHS;
    const rows = compare(
      [a, b, c],
      { [a.id]: figure(110), [b.id]: figure(109.9), [c.id]: figure(50) },
      baseline({
        [a.id]: figure(100),
        [b.id]: figure(100),
        [c.id]: figure(100),
      }),
    );
    expect(rows.map((r) => r.flagged)).toEqual([true, false, false]);
    expect(rows[2].change).toBeCloseTo(-0.5);
  });

  it('has nothing to flag without a baseline, and says when the sizes differ from the baseline’s', () => {
    const [a] = CPU_PATHS;
    expect(compare([a], { [a.id]: figure(500) }, undefined)[0].flagged).toBe(false);
    const text = renderComparison(compare([a], { [a.id]: figure(100) }, baseline({ [a.id]: figure(100) })), baseline({}), {
      takenAt: '',
      commit: '',
      machine: { cpu: '2 × test' },
      config: { e2e: 40_000, rounds: 5 },
      othersCpuPct: 80,
    });
    expect(text).toContain("sizes differ from the baseline's (e2e)");
    expect(text).not.toContain('another machine');
    expect(text).toContain('other processes used 80 % of a core (the baseline: 10 %)');
    expect(text).toContain('⚠ the machine was busy');
  });
});

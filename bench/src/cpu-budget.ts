import 'reflect-metadata';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { compare, type CpuBaseline, type PathFigure, readBaseline, renderComparison, writeBaseline } from './cpu-baseline';
import { CPU_PATHS, cpuBenchConfig, type CpuPath } from './cpu-paths';
import type { BenchConfig } from './config';
import { runToExit } from './exit';
import { runBench, type BenchResults } from './runner';
import { commandOutput, log, REPO_ROOT } from './services';
import { median, minMax } from './stats';
import { createSystems } from './systems';
import { WORKLOADS } from './workloads';

const USAGE = `pnpm bench:cpu [--rounds=3] [--paths=id,…] [--update-baseline] [--baseline=bench/cpu-baseline.json]
paths: ${CPU_PATHS.map((p) => p.id).join(', ')}`;
const DEFAULT_BASELINE = path.join(REPO_ROOT, 'bench', 'cpu-baseline.json');
/** The first round of every path warms the JIT and the broker's caches; its figures are left out. */
const WARM_UP_ROUNDS = 1;
/** The sizes a baseline was taken with; a run with other sizes is not comparable. */
const COMPARED_CONFIG = [
  'publishOne',
  'httpMessages',
  'httpConnections',
  'e2e',
  'pull',
  'ratePerSecond',
  'plainSeconds',
  'rateSeconds',
  'size',
  'window',
] as const;

/** Figures to a tenth: the file is read by people, and /proc's 10 ms ticks give no more. */
const tenth = (v: number) => Math.round(v * 10) / 10;

const measured = (results: BenchResults) => results.runs.filter((r) => r.round > WARM_UP_ROUNDS && !r.error);

/** The medians of one path over the measured rounds. */
function figure(results: BenchResults, p: CpuPath): PathFigure | undefined {
  const runs = measured(results).filter((r) => r.workload === p.workload && r.system === p.system);
  const values = runs.map((r) => r.metrics[p.metric]).filter(Number.isFinite);
  if (values.length === 0) return undefined;
  const [min, max] = minMax(values);
  const rate = Math.round(median(runs.map((r) => r.metrics[p.rate])));
  return { label: p.label, us: tenth(median(values)), min: tenth(min), max: tenth(max), rounds: values.length, rate };
}

function configOf(config: BenchConfig, rounds: number): Record<string, number> {
  return { rounds, ...Object.fromEntries(COMPARED_CONFIG.map((key) => [key, config[key]])) };
}

async function commit(): Promise<string> {
  const head = await commandOutput('git', ['-C', REPO_ROOT, 'rev-parse', '--short', 'HEAD']);
  const dirty = (await commandOutput('git', ['-C', REPO_ROOT, 'status', '--porcelain', '--', 'packages', 'apps'])).length > 0;
  return `${head}${dirty ? ' + uncommitted changes' : ''}`;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((arg) => arg !== '--'),
    options: {
      rounds: { type: 'string', default: '3' },
      paths: { type: 'string' },
      'update-baseline': { type: 'boolean', default: false },
      baseline: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const rounds = Number(values.rounds);
  if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error(`--rounds needs a positive integer\n${USAGE}`);
  const ids = values.paths?.split(',').filter(Boolean);
  const paths = ids ? CPU_PATHS.filter((p) => ids.includes(p.id)) : CPU_PATHS;
  const unknown = ids?.filter((id) => !CPU_PATHS.some((p) => p.id === id)) ?? [];
  if (unknown.length) throw new Error(`unknown path: ${unknown.join(', ')}\n${USAGE}`);
  if (values['update-baseline'] && ids)
    throw new Error('--update-baseline measures every path: a baseline is taken whole, not with --paths');
  if (!existsSync(path.join(REPO_ROOT, 'apps', 'broker', 'dist', 'main.js'))) {
    throw new Error('apps/broker/dist/main.js is missing: build first (`npx tsc -b tsconfig.build.json`, which `pnpm bench:cpu` does)');
  }

  const config = cpuBenchConfig(rounds + WARM_UP_ROUNDS);
  const workloads = WORKLOADS.filter((w) => paths.some((p) => p.workload === w.id));
  const systems = createSystems().filter((s) => paths.some((p) => p.system === s.id));
  log(`CPU budget: ${paths.length} paths, ${workloads.length} workloads × ${rounds} rounds after ${WARM_UP_ROUNDS} warm-up`);
  const started = performance.now();
  const results = await runBench(config, workloads, systems);
  const raw = path.join(REPO_ROOT, 'bench', 'results', `cpu-${results.startedAt.replace(/[:.]/g, '-')}.json`);
  mkdirSync(path.dirname(raw), { recursive: true });
  writeFileSync(raw, JSON.stringify(results, null, 2));
  for (const r of results.runs.filter((run) => run.error)) log(`  ${r.workload} on ${r.system}, round ${r.round} failed: ${r.error}`);

  const file = values.baseline ? path.resolve(process.cwd(), values.baseline) : DEFAULT_BASELINE;
  const baseline = readBaseline(file);
  const figures = Object.fromEntries(paths.flatMap((p) => (figure(results, p) ? [[p.id, figure(results, p)!]] : [])));
  const current = {
    takenAt: results.startedAt,
    commit: await commit(),
    machine: results.machine,
    config: configOf(config, rounds),
    othersCpuPct: Math.round(median(measured(results).map((r) => r.metrics.othersCpu))),
  };
  const rows = compare(paths, figures, baseline);
  process.stdout.write(`\n${renderComparison(rows, baseline, current)}\n\n`);
  log(`took ${Math.round((performance.now() - started) / 1000)} s; raw results: ${path.relative(REPO_ROOT, raw)}`);

  if (values['update-baseline']) {
    const missing = paths.filter((p) => !figures[p.id]);
    if (missing.length) throw new Error(`no figure for ${missing.map((p) => p.id).join(', ')}: the baseline was not written`);
    writeBaseline(file, { ...current, paths: figures } satisfies CpuBaseline);
    log(`wrote ${path.relative(REPO_ROOT, file)}`);
    return 0;
  }
  const regressed = rows.filter((r) => r.flagged && !r.path.yardstick);
  if (regressed.length) {
    log(`${regressed.length} path(s) ≥ 10 % above the baseline: ${regressed.map((r) => r.path.id).join(', ')}`);
    log('run it again before believing it; if the yardstick rose too, the machine is busier, not MMMQ slower');
    return 1;
  }
  return 0;
}

runToExit(main);

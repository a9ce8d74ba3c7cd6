import 'reflect-metadata';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseBenchArgs, USAGE } from './config';
import { renderChart } from './chart';
import { renderReport } from './report';
import { runBench, type BenchResults } from './runner';
import { runToExit } from './exit';
import { log, REPO_ROOT } from './services';
import { createSystems, selectSystems } from './systems';
import { WORKLOADS } from './workloads';

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const config = parseBenchArgs(process.argv.slice(2));
  if (config.from) {
    const saved = JSON.parse(readFileSync(path.resolve(process.cwd(), config.from), 'utf8')) as BenchResults;
    writeReport(saved, config.out);
    return;
  }
  const workloads = config.only.length ? WORKLOADS.filter((w) => config.only.includes(w.id)) : WORKLOADS;
  const { selected: systems, unknown: unknownSystems } = selectSystems(config.systems);
  const unknown = [...config.only.filter((id) => !WORKLOADS.some((w) => w.id === id)), ...unknownSystems];
  if (unknown.length) {
    throw new Error(
      `unknown workload or system: ${unknown.join(', ')}\nworkloads: ${WORKLOADS.map((w) => w.id).join(', ')}\nsystems: ${createSystems()
        .map((s) => s.id)
        .join(', ')}`,
    );
  }
  if (!existsSync(path.join(REPO_ROOT, 'apps', 'broker', 'dist', 'main.js'))) {
    throw new Error('apps/broker/dist/main.js is missing: build first (`npx tsc -b tsconfig.build.json`, which `pnpm bench` does)');
  }
  log(`${config.quick ? 'QUICK mode' : 'full run'}: ${workloads.length} workloads × ${systems.length} systems × ${config.rounds} rounds`);

  // Saved after every round, so an interrupted run can still be rendered with --from.
  let json: string | undefined;
  const save = (results: BenchResults) => {
    json ??= path.join(REPO_ROOT, 'bench', 'results', `${results.startedAt.replace(/[:.]/g, '-')}${config.quick ? '-quick' : ''}.json`);
    mkdirSync(path.dirname(json), { recursive: true });
    writeFileSync(json, JSON.stringify(results, null, 2));
  };
  const results = await runBench(config, workloads, systems, save);
  save(results);
  writeReport(results, config.out);
  log(`raw results: ${path.relative(REPO_ROOT, json!)}`);
}

function writeReport(results: BenchResults, outPath: string): void {
  const out = path.resolve(REPO_ROOT, outPath);
  const chart = out.replace(/\.md$/, '') + '.svg';
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(chart, renderChart(results));
  writeFileSync(out, renderReport(results, path.basename(chart)));
  log(`wrote ${path.relative(REPO_ROOT, out)} and ${path.relative(REPO_ROOT, chart)}`);
}

runToExit(main);

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import type { FaultTier } from '../tier';

/** The fault package's directory; results and artifacts live under it (both git-ignored). */
export const FAULT_DIR = resolve(__dirname, '../..');
export const RESULTS_DIR = join(FAULT_DIR, 'results');

/** One row of a scenario's table: a label, its value, and the value it must have (if any). */
export interface Figure {
  label: string;
  value: number | string;
  /** A figure with a requirement fails the test when it differs ("lost" must be 0). */
  required?: number;
}

/** What one scenario did and found, as written to docs/reliability.md. */
export interface ScenarioReport {
  /** File-safe key; sections are ordered by `order`. */
  scenario: string;
  order: number;
  title: string;
  tier: FaultTier;
  seed: number;
  date: string;
  durationMs: number;
  machine: string;
  figures: Figure[];
  /** What was skipped and why, and anything else a reader should know. */
  notes: string[];
  /** Failed requirements, as the test reported them. */
  failures: string[];
}

export function describeMachine(): string {
  const cpu = cpus();
  const memory = (totalmem() / 2 ** 30).toFixed(1);
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${memory} GiB RAM, Linux ${release()}, Node ${process.version}`;
}

export function saveScenarioReport(report: ScenarioReport): void {
  const dir = join(RESULTS_DIR, report.tier);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${report.scenario}.json`), JSON.stringify(report, null, 2));
}

export function loadScenarioReports(tier: FaultTier): ScenarioReport[] {
  const dir = join(RESULTS_DIR, tier);
  let files: string[];
  try {
    files = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  return files.map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as ScenarioReport).sort((a, b) => a.order - b.order);
}

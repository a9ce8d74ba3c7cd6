import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { CpuPath } from './cpu-paths';
import { format } from './runner';

/** A path is flagged when its median CPU per message is at least this much above its baseline. */
export const REGRESSION = 0.1;
/**
 * Other processes using more than this share of a core (%) while the paths were measured make the run suspect: on this
 * 2-core machine, CPU per message rose by a quarter and more when other work kept both cores busy.
 */
export const BUSY_MACHINE_PCT = 25;

/** One path's figures: medians over the measured rounds (the warm-up round left out), with their spread. */
export interface PathFigure {
  label: string;
  /** CPU µs per message. */
  us: number;
  min: number;
  max: number;
  rounds: number;
  /** The path's rate in the same rounds, for context only. */
  rate: number;
}

/** What `bench/cpu-baseline.json` holds: the figures and where and when they were measured. */
export interface CpuBaseline {
  takenAt: string;
  commit: string;
  machine: Record<string, string>;
  /** The sizes and rounds the figures came from; a run with others is not comparable. */
  config: Record<string, number>;
  /** Median CPU of the machine's other processes over the measured phases, % of a core: how busy the machine was. */
  othersCpuPct: number;
  paths: Record<string, PathFigure>;
}

export function readBaseline(file: string): CpuBaseline | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as CpuBaseline) : undefined;
}

export function writeBaseline(file: string, baseline: CpuBaseline): void {
  writeFileSync(file, `${JSON.stringify(baseline, null, 2)}\n`);
}

export interface Comparison {
  path: CpuPath;
  now?: PathFigure;
  before?: PathFigure;
  /** now ÷ before − 1; NaN without both. */
  change: number;
  flagged: boolean;
}

export function compare(paths: CpuPath[], now: Record<string, PathFigure>, baseline: CpuBaseline | undefined): Comparison[] {
  return paths.map((path) => {
    const figure = now[path.id];
    const before = baseline?.paths[path.id];
    const change = figure && before && before.us > 0 ? figure.us / before.us - 1 : NaN;
    // A hair of tolerance: 110 against 100 is 10 %, whatever the floating point makes of it.
    return { path, now: figure, before, change, flagged: change >= REGRESSION - 1e-9 };
  });
}

const us = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '–' : format(v, 'µs'));
const pad = (text: string, width: number, right = false) => (right ? text.padStart(width) : text.padEnd(width));

/** The comparison as a plain-text table for the terminal, with what differs between the two runs' set-ups. */
export function renderComparison(rows: Comparison[], baseline: CpuBaseline | undefined, current: Omit<CpuBaseline, 'paths'>): string {
  const lines: string[] = [];
  const rounds = rows.find((r) => r.now)?.now?.rounds ?? 0;
  lines.push(
    `CPU µs per message, median of ${rounds} round${rounds === 1 ? '' : 's'} after a warm-up round (min–max); msgs/s for context only`,
  );
  lines.push(
    baseline
      ? `baseline: ${baseline.takenAt.slice(0, 16).replace('T', ' ')} UTC, commit ${baseline.commit}, ${baseline.machine.cpu}`
      : 'baseline: none yet (run with --update-baseline to write one)',
  );
  lines.push('');
  const width = Math.max(...rows.map((r) => r.path.label.length));
  lines.push(
    `${pad('path', width)}  ${pad('now', 17, true)}  ${pad('baseline', 8, true)}  ${pad('change', 8, true)}  ${pad('msgs/s', 8, true)}`,
  );
  for (const r of rows) {
    const now = r.now ? `${us(r.now.us)} (${us(r.now.min)}–${us(r.now.max)})` : 'no result';
    const change = Number.isFinite(r.change) ? `${r.change >= 0 ? '+' : ''}${(r.change * 100).toFixed(1)} %` : '–';
    const flag = r.flagged ? (r.path.yardstick ? '  ⚠ the machine' : '  ⚠ ≥ 10 %') : '';
    lines.push(
      `${pad(r.path.label, width)}  ${pad(now, 17, true)}  ${pad(us(r.before?.us), 8, true)}  ${pad(change, 8, true)}  ${pad(r.now ? format(r.now.rate, '/s') : '–', 8, true)}${flag}`,
    );
  }
  const others = (pct: number) => (Number.isFinite(pct) ? `${Math.round(pct)} %` : '–');
  lines.push(
    '',
    `other processes used ${others(current.othersCpuPct)} of a core (the baseline: ${others(baseline?.othersCpuPct ?? NaN)}) during the measured phases, median over the rounds`,
  );
  if (current.othersCpuPct > BUSY_MACHINE_PCT) {
    lines.push(`⚠ the machine was busy: CPU per message rises when other work competes for the cores; run again when it is quieter`);
  }
  if (baseline) {
    // More or fewer rounds change the median's spread, not what a round measures.
    const differs = Object.keys(current.config).filter((key) => key !== 'rounds' && baseline.config[key] !== current.config[key]);
    if (differs.length) lines.push('', `⚠ sizes differ from the baseline's (${differs.join(', ')}): the figures are not comparable`);
    if (baseline.machine.cpu !== current.machine.cpu) lines.push('', `⚠ another machine: the baseline's is ${baseline.machine.cpu}`);
  }
  return lines.join('\n');
}

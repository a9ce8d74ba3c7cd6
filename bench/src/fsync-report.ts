import { aggregate, mmmqOf } from './aggregate';
import type { BenchResults } from './runner';
import { format } from './runner';
import type { TargetRow } from './targets';

/** "Flat": the broker's fsyncs/s at 100 and at 1,000 topics are each at most this many times the 1-topic rate. */
export const FLAT_FSYNC_RATIO = 1.25;

/** The workloads whose fsyncs are compared; one topic is the end-to-end saturation workload, the same load on one topic. */
const SERIES = [
  { id: 'e2e-saturation', label: '1 topic (*end to end at saturation*, the reference)', short: '1 topic' },
  { id: 'topics-100', label: '100 topics', short: '100 topics' },
  { id: 'topics-1000', label: '1,000 topics', short: '1,000 topics' },
];

interface Point {
  label: string;
  short: string;
  rate: number;
  fsyncs: number;
  /** Why there is no count (the broker has no `GET /mmmq/storage`). */
  why?: string;
  workload: string;
}

function points(results: BenchResults): Point[] {
  const mmmq = mmmqOf(results);
  if (!mmmq) return [];
  return SERIES.filter((s) => results.workloads.some((w) => w.id === s.id)).map((s) => ({
    ...s,
    workload: s.id,
    rate: aggregate(results, s.id, mmmq.id, 'rate').median,
    fsyncs: aggregate(results, s.id, mmmq.id, 'fsyncRate').median,
    why: results.runs.find((r) => r.workload === s.id && r.system === mmmq.id && r.unmeasured?.fsyncRate)?.unmeasured?.fsyncRate,
  }));
}

const shown = (p: Point) => (Number.isFinite(p.fsyncs) ? `${format(p.fsyncs, '/s')}/s` : 'n/a');

/** The target row "broker fsyncs/s flat from 1 to 1,000 topics", or nothing when none of its workloads ran. */
export function fsyncTarget(results: BenchResults): TargetRow | undefined {
  const all = points(results);
  if (!all.some((p) => p.workload !== 'e2e-saturation')) return undefined;
  const target = `broker fsyncs/s flat from 1 to 1,000 topics (each ≤ ${FLAT_FSYNC_RATIO}× the 1-topic rate)`;
  const measured = all.map((p) => `${p.short} ${shown(p)}`).join(', ');
  const [one, ...many] = all;
  const why = all.find((p) => p.why)?.why;
  if (
    one?.workload !== 'e2e-saturation' ||
    !Number.isFinite(one.fsyncs) ||
    many.some((p) => !Number.isFinite(p.fsyncs)) ||
    many.length === 0
  ) {
    return { target, measured: why ? `${measured}; ${why}` : measured, met: undefined };
  }
  const worst = Math.max(...many.map((p) => p.fsyncs / one.fsyncs));
  return { target, measured: `${measured}: ${worst.toFixed(2)}× at most`, met: worst <= FLAT_FSYNC_RATIO };
}

/** A table of MMMQ's fsyncs/s by kind for 1, 100 and 1,000 topics. */
export function fsyncSection(results: BenchResults): string[] {
  const all = points(results);
  const mmmq = mmmqOf(results);
  if (!mmmq || all.length === 0) return [];
  const lines = [
    '## MMMQ broker fsyncs, 1 → 1,000 topics',
    '',
    "The broker's own fsync count (`GET /mmmq/storage`, `fsyncs`: every fdatasync/fsync it made) read just before and just after the measured phase of each round, divided by the time between the two reads; medians of the rounds. The 1-topic row is the *end to end at saturation* workload (the same publishing and consuming, on one topic). The peers report no such count.",
    '',
    '| workload | msgs/s | fsyncs/s | journal | flush | other |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const p of all) {
    const kind = (key: string) => format(aggregate(results, p.workload, mmmq.id, key).median, '/s');
    lines.push(
      Number.isFinite(p.fsyncs)
        ? `| ${p.label} | ${format(p.rate, '/s')} | ${kind('fsyncRate')} | ${kind('fsyncRateJournal')} | ${kind('fsyncRateFlush')} | ${kind('fsyncRateOther')} |`
        : `| ${p.label} | ${format(p.rate, '/s')} | n/a${p.why ? `: ${p.why}` : ''} | | | |`,
    );
  }
  lines.push('');
  return lines;
}

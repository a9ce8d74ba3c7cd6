import { aggregate } from './aggregate';
import type { BenchResults } from './runner';
import { format } from './runner';

const WIDTH = 960;
const LABEL_W = 190;
const VALUE_W = 190;
const BAR_H = 16;
const GAP = 5;
const PANEL_HEAD = 34;
const PANEL_GAP = 18;
const COLORS = {
  mmmq: '#d9480f',
  'mmmq-mode': '#f76707',
  'mmmq-transport': '#ffa94d',
  'durable-peer': '#1c7ed6',
  peer: '#adb5bd',
  reference: '#868e96',
} as const;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * One panel per workload: a horizontal bar per system for the workload's headline figure (median), with a
 * whisker from the smallest to the largest round. No dependencies: plain SVG text.
 */
export function renderChart(results: BenchResults): string {
  const parts: string[] = [];
  let y = 56;
  const barsX = LABEL_W;
  const barsW = WIDTH - LABEL_W - VALUE_W;
  for (const workload of results.workloads) {
    const metric = workload.metrics.find((m) => m.key === workload.headline)!;
    const rows = results.systems
      .filter((s) => !s.unavailable && !(s.kind === 'reference' && workload.notApplicable[s.id]))
      .map((s) => ({ system: s, agg: aggregate(results, workload.id, s.id, metric.key), na: workload.notApplicable[s.id] }));
    const scale = Math.max(...rows.map((r) => (Number.isFinite(r.agg.max) ? r.agg.max : 0)), 1e-9);
    const direction = metric.better === 'higher' ? 'higher is better' : 'lower is better';
    parts.push(
      `<text x="0" y="${y + 14}" class="title">${esc(workload.title)}</text>`,
      `<text x="${WIDTH}" y="${y + 14}" class="unit" text-anchor="end">${esc(metric.label)}${metric.unit && metric.unit !== '/s' ? ` (${esc(metric.unit)})` : ''}, ${direction}</text>`,
    );
    y += PANEL_HEAD;
    for (const { system, agg, na } of rows) {
      parts.push(`<text x="${LABEL_W - 8}" y="${y + BAR_H - 4}" text-anchor="end" class="label">${esc(system.label)}</text>`);
      if (na || !Number.isFinite(agg.median)) {
        parts.push(`<text x="${barsX + 4}" y="${y + BAR_H - 4}" class="na">${na ? 'n/a' : 'no result'}</text>`);
      } else {
        const w = Math.max(1, (agg.median / scale) * barsW);
        const x0 = barsX + (agg.min / scale) * barsW;
        const x1 = barsX + (agg.max / scale) * barsW;
        const mid = y + BAR_H / 2;
        parts.push(
          `<rect x="${barsX}" y="${y}" width="${w.toFixed(1)}" height="${BAR_H}" fill="${COLORS[system.kind]}"/>`,
          `<line x1="${x0.toFixed(1)}" y1="${mid}" x2="${x1.toFixed(1)}" y2="${mid}" class="whisker"/>`,
          `<line x1="${x0.toFixed(1)}" y1="${mid - 4}" x2="${x0.toFixed(1)}" y2="${mid + 4}" class="whisker"/>`,
          `<line x1="${x1.toFixed(1)}" y1="${mid - 4}" x2="${x1.toFixed(1)}" y2="${mid + 4}" class="whisker"/>`,
          `<text x="${WIDTH - VALUE_W + 8}" y="${y + BAR_H - 4}" class="value">${esc(format(agg.median, metric.unit))}${metric.unit === 'ms' ? ' ms' : ''}</text>`,
        );
      }
      y += BAR_H + GAP;
    }
    y += PANEL_GAP;
  }
  const legend = [
    ['MMMQ', COLORS.mmmq],
    ['MMMQ API on RabbitMQ', COLORS['mmmq-transport']],
    ['durable peer (ACK after fsync)', COLORS['durable-peer']],
    ['ACK before fsync (not durable)', COLORS.peer],
    ['no broker (outbox ceiling)', COLORS.reference],
  ];
  // Each entry as wide as its label (12 px text: about 6.5 px a character), so five fit in the chart's width.
  let legendX = 0;
  const legendEntries = legend.map(([label, color]) => {
    const entry = `<rect x="${legendX}" y="30" width="12" height="12" fill="${color}"/><text x="${legendX + 18}" y="41" class="label">${esc(label)}</text>`;
    legendX += 18 + Math.ceil(label.length * 6.5) + 16;
    return entry;
  });
  const quick = results.config.quick ? ' — QUICK MODE, small samples, noisy' : '';
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${y}" viewBox="0 0 ${WIDTH} ${y}" font-family="Helvetica, Arial, sans-serif">`,
    '<style>.title{font-size:14px;font-weight:bold}.unit{font-size:11px;fill:#555}.label{font-size:12px}.value{font-size:12px}.na{font-size:11px;fill:#888;font-style:italic}.whisker{stroke:#222;stroke-width:1}</style>',
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="0" y="16" class="title">MMMQ vs peers, median of ${results.config.rounds} round${results.config.rounds === 1 ? '' : 's'} (whiskers: min–max)${esc(quick)}</text>`,
    legendEntries.join(''),
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}

import { aggregate, mmmqOf } from './aggregate';
import type { BenchResults } from './runner';
import { format } from './runner';

/**
 * MMMQ's persistent and nonPersistent publishes side by side, per publish workload and figure (the workload tables
 * show them among the peers too): empty unless a run had both.
 */
export function deliveryModeSection(results: BenchResults): string[] {
  const persistent = mmmqOf(results);
  const variant = results.systems.find((s) => s.kind === 'mmmq-mode' && !s.unavailable);
  if (!persistent || !variant) return [];
  const rows: string[] = [];
  for (const w of results.workloads) {
    if (w.notApplicable[persistent.id] || w.notApplicable[variant.id]) continue;
    for (const m of w.metrics) {
      const a = aggregate(results, w.id, persistent.id, m.key).median;
      const b = aggregate(results, w.id, variant.id, m.key).median;
      if (!Number.isFinite(a) && !Number.isFinite(b)) continue;
      const unit = m.unit === '/s' ? '' : ` ${m.unit}`;
      const ratio = Number.isFinite(a) && Number.isFinite(b) && a !== 0 ? `${(b / a).toFixed(2)}×` : '–';
      rows.push(`| ${w.title} | ${m.label} | ${format(a, m.unit)}${unit} | ${format(b, m.unit)}${unit} | ${ratio} |`);
    }
  }
  if (rows.length === 0) return [];
  return [
    '## Delivery modes',
    '',
    `${persistent.label} (persistent: ACK once fsync'd) and ${variant.label} (ACK on receipt, before the fsync; see [destinations.md § Delivery modes](destinations.md#delivery-modes)), medians of the same run. Consumers get a message once it is durable in both modes, so only the publish workloads differ.`,
    '',
    `| workload | figure | ${persistent.label} | ${variant.label} | nonPersistent ÷ persistent |`,
    '|---|---|---:|---:|---:|',
    ...rows,
    '',
  ];
}

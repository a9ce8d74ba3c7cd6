import { aggregate, mmmqOf } from './aggregate';
import type { BenchResults } from './runner';
import { format } from './runner';

/** The raw RabbitMQ row MMMQ's API on RabbitMQ is set against: the same queue type. */
const RAW_QUORUM = 'rabbitmq-quorum';

const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `${(a / b).toFixed(2)}×` : '–');

/**
 * What switching MMMQ's libraries to RabbitMQ costs (docs/scaling.md § What the switch costs): each
 * `mmmq-transport` row's medians beside raw RabbitMQ quorum (amqplib) and MMMQ, per workload and figure, with the
 * ratios. Empty unless a run had such a row and at least one of the two others.
 */
export function transportSection(results: BenchResults): string[] {
  const raw = results.systems.find((s) => s.id === RAW_QUORUM && !s.unavailable);
  const mmmq = mmmqOf(results);
  const rows: string[] = [];
  for (const api of results.systems.filter((s) => s.kind === 'mmmq-transport' && !s.unavailable)) {
    for (const w of results.workloads) {
      if (w.notApplicable[api.id]) continue;
      for (const m of w.metrics) {
        if (m.ratio === false) continue;
        const mine = aggregate(results, w.id, api.id, m.key).median;
        const theirs = raw ? aggregate(results, w.id, raw.id, m.key).median : NaN;
        const own = mmmq ? aggregate(results, w.id, mmmq.id, m.key).median : NaN;
        if (!Number.isFinite(mine)) continue;
        const unit = m.unit === '/s' ? '' : ` ${m.unit}`;
        const shown = (v: number) => (Number.isFinite(v) ? `${format(v, m.unit)}${unit}` : '–');
        rows.push(
          `| ${api.label} | ${w.title} | ${m.label} | ${shown(mine)} | ${shown(theirs)} | ${ratio(mine, theirs)} | ${shown(own)} | ${ratio(mine, own)} |`,
        );
      }
    }
  }
  if (rows.length === 0 || (!raw && !mmmq)) return [];
  return [
    '## MMMQ API on RabbitMQ quorum',
    '',
    "MMMQ's own `Producer` and listeners on RabbitMQ quorum queues (the `transport` option, [scaling.md](scaling.md#what-the-switch-costs)) beside RabbitMQ quorum driven by amqplib directly and beside MMMQ, medians of the same run. For rates above 1× means the API on RabbitMQ is faster; for latencies below 1×.",
    '',
    '| system | workload | figure | MMMQ API on RabbitMQ | RabbitMQ quorum (amqplib) | ÷ RabbitMQ quorum | MMMQ | ÷ MMMQ |',
    '|---|---|---|---:|---:|---:|---:|---:|',
    ...rows,
    '',
  ];
}

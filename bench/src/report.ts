import { FULL } from './config';
import { aggregate, best, isDurablePeer, isPeer, type Aggregate } from './aggregate';
import type { BenchResults, SystemInfo, WorkloadInfo } from './runner';
import { format, USAGE_METRICS } from './runner';
import type { MetricDef } from './workloads/workload';

/** Units that go in the column header, so cells hold bare numbers. */
const HEADER_UNITS: Record<string, string> = { ms: 'ms', '%': '%', MiB: 'MiB' };

const bare = (value: number, unit: string) => format(value, unit).replace(/ (%|MiB)$/, '');

const cell = (a: Aggregate, unit: string) =>
  !Number.isFinite(a.median) ? '–' : a.rounds > 1 ? `${bare(a.median, unit)} (${bare(a.min, unit)}–${bare(a.max, unit)})` : bare(a.median, unit);

const ratio = (mmmq: number, peer: number | undefined) =>
  peer === undefined || !Number.isFinite(mmmq) || !Number.isFinite(peer) || peer === 0 ? '–' : `${(mmmq / peer).toFixed(2)}×`;

const mmmqOf = (results: BenchResults) => results.systems.find((s) => s.kind === 'mmmq');

function workloadSection(results: BenchResults, w: WorkloadInfo): string {
  const lines: string[] = [`## ${w.title}`, '', w.description, ''];
  const columns: MetricDef[] = [...w.metrics, ...USAGE_METRICS];
  const unitOf = (m: MetricDef) => (HEADER_UNITS[m.unit] ? ` (${HEADER_UNITS[m.unit]})` : '');
  lines.push(`| system | ${columns.map((m) => `${m.label}${unitOf(m)}`).join(' | ')} |`);
  lines.push(`|---|${columns.map(() => '---:').join('|')}|`);
  const available = results.systems.filter((s) => !s.unavailable);
  for (const s of available) {
    const na = w.notApplicable[s.id];
    const name = s.kind === 'mmmq' ? `**${s.label}**` : s.kind === 'peer' ? `${s.label} ⚠︎` : s.label;
    if (na) {
      lines.push(`| ${name} | n/a: ${na} |${columns.slice(1).map(() => ' |').join('')}`);
      continue;
    }
    lines.push(`| ${name} | ${columns.map((m) => cell(aggregate(results, w.id, s.id, m.key), m.unit)).join(' | ')} |`);
  }
  const mmmq = mmmqOf(results);
  if (mmmq && !w.notApplicable[mmmq.id]) {
    for (const [label, include] of [
      ['best durable peer', isDurablePeer],
      ['best peer (any)', isPeer],
    ] as const) {
      const cells = w.metrics.map((m) => {
        if (m.ratio === false) return '';
        const b = best(results, w.id, m, include);
        const r = ratio(aggregate(results, w.id, mmmq.id, m.key).median, b?.value);
        return r === '–' ? r : `**${r}** vs ${b!.system.label}`;
      });
      lines.push(`| MMMQ ÷ ${label} | ${cells.join(' | ')} |${USAGE_METRICS.map(() => ' |').join('')}`);
    }
  }
  lines.push('');
  const notes = results.runs
    .filter((r) => r.workload === w.id && (r.note || r.error))
    .map((r) => `- ${results.systems.find((s) => s.id === r.system)?.label}, round ${r.round}: ${r.error ? `**failed**: ${r.error}` : r.note}`);
  if (notes.length) lines.push('Notes:', '', ...notes, '');
  return lines.join('\n');
}

const withUnit = (value: number, unit: string) => `${format(value, unit)}${unit === 'ms' ? ' ms' : unit === '/s' ? '/s' : ''}`;

interface TargetRow {
  target: string;
  measured: string;
  met: boolean | undefined;
}

function targets(results: BenchResults): TargetRow[] {
  const mmmq = mmmqOf(results);
  if (!mmmq) return [];
  const rows: TargetRow[] = [];
  const workload = (id: string) => results.workloads.find((w) => w.id === id);
  const metric = (w: WorkloadInfo, key: string) => w.metrics.find((m) => m.key === key)!;
  const mine = (w: WorkloadInfo, key: string) => aggregate(results, w.id, mmmq.id, key).median;
  const peer = (id: string) => results.systems.find((s) => s.id === id);
  const versus = (w: WorkloadInfo | undefined, key: string, need: number, target: string, include: (s: SystemInfo) => boolean) => {
    if (!w) return;
    const b = best(results, w.id, metric(w, key), include);
    const m = mine(w, key);
    if (!b || !Number.isFinite(m)) return rows.push({ target, measured: 'no result', met: undefined });
    const higher = metric(w, key).better === 'higher';
    const r = m / b.value;
    rows.push({
      target,
      measured: `MMMQ ${withUnit(m, metric(w, key).unit)} vs ${b.system.label} ${withUnit(b.value, metric(w, key).unit)}: ${r.toFixed(2)}×`,
      met: higher ? r >= need : r <= need,
    });
  };
  const e2e = workload('e2e-saturation');
  versus(e2e, 'rate', 1.5, 'end to end at saturation ≥ 1.5× the best durable peer', isDurablePeer);
  const one = workload('publish-one');
  versus(one, 'rate', 1.0, 'confirmed one-at-a-time publish ≥ 1.0× Redis always', (s) => s.id === 'redis-always' && !!peer('redis-always'));
  versus(one, 'rate', 2.0, 'confirmed one-at-a-time publish ≥ 2× RabbitMQ (the faster queue type)', (s) => s.id.startsWith('rabbitmq'));
  const fixed = workload('e2e-fixed-rate');
  versus(fixed, 'p99', 1.0, 'end to end at 5,000 msg/s: p99 ≤ the best durable peer\'s p99', isDurablePeer);
  if (fixed) {
    const p50 = mine(fixed, 'p50');
    rows.push({ target: 'end to end at 5,000 msg/s: p50 ≤ 0.65 ms', measured: `${format(p50, 'ms')} ms`, met: Number.isFinite(p50) ? p50 <= 0.65 : undefined });
  }
  versus(workload('fanout-3'), 'rate', 1.5, 'fan-out to 3 consumers ≥ 1.5× the best durable peer', isDurablePeer);
  versus(workload('topics-100'), 'rate', 1.5, '100 topics ≥ 1.5× the best durable peer', isDurablePeer);
  const backlog = workload('backlog-restart');
  if (backlog) {
    const n = results.config.backlog.toLocaleString('en');
    const ttfd = mine(backlog, 'ttfd');
    const rss = aggregate(results, backlog.id, mmmq.id, 'brokerRss').median;
    rows.push({ target: `backlog after restart (${n} messages): first delivery within 2 s`, measured: `${format(ttfd, 'ms')} ms`, met: Number.isFinite(ttfd) ? ttfd <= 2000 : undefined });
    rows.push({ target: `backlog after restart (${n} messages): broker RSS under 300 MB`, measured: format(rss, 'MiB'), met: Number.isFinite(rss) ? rss * 1.048576 < 300 : undefined });
  }
  return rows;
}

export function renderReport(results: BenchResults, chartFile: string): string {
  const c = results.config;
  const out: string[] = [];
  out.push('# Benchmarks: MMMQ vs RabbitMQ, Redis Streams and NATS JetStream', '');
  out.push(
    `Generated by \`pnpm bench${c.quick ? ' --quick' : ''}\` (\`bench/\`) on ${results.startedAt.slice(0, 16).replace('T', ' ')} UTC; the run took ${Math.round(results.seconds / 60)} min. ` +
      'Every system ran every workload in the same run, on this one machine, one after another (never two at once).',
    '',
  );
  if (c.quick) out.push('> **QUICK MODE**: small message counts for a smoke test. The figures are noisy and say little; run `pnpm bench` for the real ones.', '');
  const reduced = (Object.keys(FULL) as Array<keyof typeof FULL>).filter((key) => !c.quick && c[key] !== FULL[key]);
  if (reduced.length > 0) {
    out.push(
      `> **Sizes differ from the full run**: ${reduced.map((key) => `${key} ${c[key].toLocaleString('en-US')} (full: ${FULL[key].toLocaleString('en-US')})`).join(', ')}.`,
      '',
    );
  }
  if (c.only.length || c.systems.length)
    out.push(`> **Partial run**: ${c.only.length ? `workloads ${c.only.join(', ')}` : 'all workloads'}; ${c.systems.length ? `systems ${c.systems.join(', ')}` : 'all systems'}.`, '');
  out.push(`![MMMQ vs peers](${chartFile})`, '');

  const rows = targets(results);
  if (rows.length) {
    out.push('## Targets (issue 5)', '', '"Durable peer" = RabbitMQ classic or quorum, or Redis Streams with `appendfsync always`.', '');
    out.push('| target | measured | met |', '|---|---|:---:|');
    for (const r of rows) out.push(`| ${r.target} | ${r.measured} | ${r.met === undefined ? '?' : r.met ? '✅' : '❌'} |`);
    out.push('');
    if (rows.some((r) => r.met === false)) {
      out.push('Where a target is missed, [performance.md](performance.md) has the profile that shows where the time goes and what would close the gap.', '');
    }
  }

  out.push('## Systems', '');
  out.push('| system | version | what an acknowledgement means | restart (backlog workload) |', '|---|---|---|---|');
  for (const s of results.systems) {
    const kind = s.kind === 'durable-peer' ? ' (durable peer)' : s.kind === 'peer' ? ' ⚠︎ not durable' : '';
    out.push(`| ${s.label}${kind} | ${s.version} | ${s.description}${s.unavailable ? ` — **unavailable in this run**: ${s.unavailable}` : ''} | ${s.restart} |`);
  }
  out.push(
    '',
    '**NATS JetStream acknowledges a publish before the message is fsync\'d**, and so does Redis with `appendfsync everysec`: their figures are shown for reference (marked ⚠︎) and never count as the "durable peer". MMMQ answers ACK only once the message is fsync\'d, like RabbitMQ\'s publisher confirms for persistent messages and Redis with `appendfsync always`.',
    '',
  );

  out.push('## How the figures are made', '');
  out.push(
    `- Each figure is the **median of ${c.rounds} round${c.rounds === 1 ? '' : 's'}**, with the smallest and largest round in brackets. Rounds alternate between systems (the order rotates each round), and each round uses new queues/streams/topics that are deleted afterwards.`,
    '- One Node.js process (the bench) is both the publisher and the consumer, on one thread, as an application would be: for MMMQ it runs the project\'s own `Producer` and a consumer Nest app; for the peers amqplib, ioredis and @nats-io/jetstream. Messages are JSON (`{"seq","t","pad"}`), parsed by every consumer.',
    '- **broker CPU** is the broker process\'s CPU time (from `/proc/<pid>/stat`) over the measured phase divided by its wall time: 100 % = one core (the machine has ' +
      `${results.machine.cpu.split(' ×')[0]}). **broker RSS** is the peak \`VmRSS\` (\`/proc/<pid>/status\`, sampled every 100 ms). For RabbitMQ that is \`beam.smp\` (the whole node, not only the bench\'s queues), for Redis and NATS their server, for MMMQ the broker\'s node process. **client CPU** is the bench process (publisher + consumer).`,
    '- **MMMQ ÷ best durable peer** divides MMMQ\'s median by the best durable peer\'s median for the same column; **MMMQ ÷ best peer (any)** includes the non-durable ones. For rates above 1× means MMMQ is faster; for latencies and times below 1× means MMMQ is faster.',
    `- Sizes: ${c.size / 1024} KiB messages unless stated; pipelined workloads keep at most ${c.window.toLocaleString('en')} publishes unacknowledged.`,
    '',
  );

  for (const w of results.workloads) out.push(workloadSection(results, w));

  out.push('## Machine', '', '| | |', '|---|---|');
  for (const [k, v] of Object.entries(results.machine)) out.push(`| ${k} | ${v} |`);
  out.push('', `Configuration: \`${JSON.stringify({ ...c, only: undefined, systems: undefined, out: undefined })}\``, '');
  return out.join('\n');
}

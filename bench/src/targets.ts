import { aggregate, best, isDurablePeer, mmmqOf } from './aggregate';
import { embeddedTargets } from './embedded-report';
import { fsyncTarget } from './fsync-report';
import { httpCeilingTarget } from './http-ceiling-report';
import type { BenchResults, SystemInfo, WorkloadInfo } from './runner';
import { format } from './runner';

export interface TargetRow {
  target: string;
  measured: string;
  met: boolean | undefined;
}

export const withUnit = (value: number, unit: string) => `${format(value, unit)}${unit === 'ms' ? ' ms' : unit === '/s' ? '/s' : ''}`;

/** Backlog after a restart: the first message is delivered within this long. */
const BACKLOG_FIRST_DELIVERY_MS = 2000;
/** Backlog after a restart: the broker's peak RSS stays under this many MB (10^6 bytes). */
const BACKLOG_RSS_MB = 300;
/** The systems the outbox → inbox workload compares MMMQ with: the same pattern built on RabbitMQ. */
const isRabbitMq = (s: SystemInfo) => s.id.startsWith('rabbitmq');
/** A plain consumer keeps up when the lag at the end of publishing is at most this many seconds of publishing. */
export const PLAIN_LAG_BOUND_SECONDS = 1;

/**
 * The targets of storage v2 (the broker-wide journal), the fan-out target, which storage v2 keeps, the
 * workloads of the one subscription model (docs/delivery.md), the outbox → inbox and the embedded (one-app) workload. Each row compares medians; a
 * workload left out of the run gives no row.
 */
export function targets(results: BenchResults): TargetRow[] {
  const mmmq = mmmqOf(results);
  if (!mmmq) return [];
  const rows: TargetRow[] = [];
  const workload = (id: string) => results.workloads.find((w) => w.id === id);
  const metric = (w: WorkloadInfo, key: string) => w.metrics.find((m) => m.key === key)!;
  const mine = (w: WorkloadInfo, key: string) => aggregate(results, w.id, mmmq.id, key).median;
  const versus = (id: string, key: string, need: number, target: string, include: (s: SystemInfo) => boolean = isDurablePeer) => {
    const w = workload(id);
    if (!w) return;
    const b = best(results, w.id, metric(w, key), include);
    const m = mine(w, key);
    if (!b || !Number.isFinite(m)) return rows.push({ target, measured: 'no result', met: undefined });
    const { unit, better } = metric(w, key);
    const r = m / b.value;
    rows.push({
      target,
      measured: `MMMQ ${withUnit(m, unit)} vs ${b.system.label} ${withUnit(b.value, unit)}: ${r.toFixed(2)}×`,
      met: better === 'higher' ? r >= need : r <= need,
    });
  };
  versus('publish-one', 'rate', 1.0, 'confirmed publish, one at a time ≥ 1.0× Redis Streams always', (s) => s.id === 'redis-always');
  versus('topics-100', 'rate', 1.5, '100 topics × 1 consumer each ≥ 1.5× the best durable peer');
  versus('topics-1000', 'rate', 1.5, '1,000 topics × 1 consumer each ≥ 1.5× the best durable peer');
  const flat = fsyncTarget(results);
  if (flat) rows.push(flat);
  versus('e2e-fixed-rate', 'p50', 1.0, "end to end at 5,000 msg/s: p50 ≤ the best durable peer's p50");
  versus('e2e-fixed-rate', 'p99', 1.0, "end to end at 5,000 msg/s: p99 ≤ the best durable peer's p99");
  versus('http-publishers', 'rate', 1.5, 'plain HTTP publishers ≥ 1.5× the best durable peer (64 unpipelined confirmed publishers)');
  const ceiling = httpCeilingTarget(results);
  if (ceiling) rows.push(ceiling);
  versus('e2e-saturation', 'rate', 1.5, 'end to end at saturation ≥ 1.5× the best durable peer (no regression)');
  const backlog = workload('backlog-restart');
  if (backlog) {
    const n = results.config.backlog.toLocaleString('en');
    const ttfd = mine(backlog, 'ttfd');
    const rss = aggregate(results, backlog.id, mmmq.id, 'brokerRss').median;
    rows.push({
      target: `backlog after restart (${n} messages): first delivery < ${BACKLOG_FIRST_DELIVERY_MS / 1000} s`,
      measured: `${format(ttfd, 'ms')} ms`,
      met: Number.isFinite(ttfd) ? ttfd < BACKLOG_FIRST_DELIVERY_MS : undefined,
    });
    rows.push({
      target: `backlog after restart (${n} messages): broker RSS < ${BACKLOG_RSS_MB} MB`,
      measured: format(rss, 'MiB'),
      met: Number.isFinite(rss) ? rss * 1.048576 < BACKLOG_RSS_MB : undefined,
    });
  }
  versus('fanout-3', 'rate', 1.5, 'fan-out to 3 consumers ≥ 1.5× the best durable peer');
  versus('competing-3', 'rate', 1.5, 'competing consumers, 3 sharing one queue ≥ 1.5× the best durable peer');
  versus('pull-100', 'rate', 1.5, 'pull, fetch 100 / acknowledge the batch ≥ 1.5× the best durable peer');
  // Throughput is the drained backlog's: with the writers alongside, both systems' rates are at most the writers'.
  versus(
    'outbox-inbox-backlog',
    'rate',
    1.5,
    'outbox → relay → broker → consumer with inbox, a backlog drained ≥ 1.5× the same pattern on RabbitMQ',
    isRabbitMq,
  );
  const live = workload('outbox-inbox');
  const rabbit = live && best(results, live.id, metric(live, 'rate'), isRabbitMq);
  if (live && rabbit) {
    // Not a target: a pipeline that keeps up runs at its writers' pace, so this ratio is the writers'.
    const theirs = (key: string) => aggregate(results, live.id, rabbit.system.id, key).median;
    rows.push({
      target: 'the same with the writers alongside (not a target: each rate is at most its writers’ commits/s)',
      measured:
        `MMMQ ${withUnit(mine(live, 'rate'), '/s')} (writers ${withUnit(mine(live, 'writeRate'), '/s')}, p99 ${withUnit(mine(live, 'p99'), 'ms')}) ` +
        `vs ${rabbit.system.label} ${withUnit(rabbit.value, '/s')} (writers ${withUnit(theirs('writeRate'), '/s')}, p99 ${withUnit(theirs('p99'), 'ms')})`,
      met: undefined,
    });
  }
  rows.push(...embeddedTargets(results));
  // Against Nest's own RMQ transport, whichever queue type answered faster.
  versus(
    'request-reply',
    'rate',
    1.5,
    "request-reply round trips/s ≥ 1.5× Nest's RMQ transport (same handler, same concurrency)",
    isRabbitMq,
  );
  versus('request-reply', 'p99', 1.0, "request-reply p99 ≤ Nest's RMQ transport's", isRabbitMq);
  for (const id of ['plain-consumer', 'plain-consumer-3']) {
    const w = workload(id);
    if (!w) continue;
    const rate = results.config.ratePerSecond;
    const bound = rate * PLAIN_LAG_BOUND_SECONDS;
    const lag = mine(w, 'lag');
    rows.push({
      target: `${w.title}, keeping up: lag at the end ≤ ${bound.toLocaleString('en')} (${PLAIN_LAG_BOUND_SECONDS} s of publishing)`,
      measured: Number.isFinite(lag)
        ? `lag ${format(lag, '')}, ${withUnit(mine(w, 'rate'), '/s')} delivered, p99 ${withUnit(mine(w, 'p99'), 'ms')}`
        : 'no result',
      met: Number.isFinite(lag) ? lag <= bound : undefined,
    });
  }
  return rows;
}

import { aggregate, best, isDurablePeer, mmmqOf } from './aggregate';
import type { BenchResults } from './runner';
import { format } from './runner';
import type { TargetRow } from './targets';
import { EMBEDDED_METRICS } from './workloads/embedded';

/** MMMQ's one-app end to end at saturation is at least this many times the best durable peer's. */
export const EMBEDDED_E2E_RATIO = 3;
/** MMMQ's one-app confirmed produce, one at a time, is at least this share of a bare fdatasync loop. */
export const EMBEDDED_PRODUCE_VS_FDATASYNC = 0.8;
/** MMMQ's one-app p99 at the fixed rate is at most this many times the best durable peer's. */
export const EMBEDDED_P99_RATIO = 1;

const WORKLOAD = 'embedded';
const m = EMBEDDED_METRICS;

const perMessage = (us: number) => (Number.isFinite(us) ? `${format(us, 'µs')} µs/msg` : 'n/a');
const figure = (value: number, unit: string) => `${format(value, unit)}${unit === 'ms' ? ' ms' : '/s'}`;

/**
 * The three targets of the embedded workload, from the medians of the run: end to end at saturation ≥ 3× the
 * best durable peer, one-at-a-time produce ≥ 0.8× the bare fdatasync loop timed in the same round (into preallocated blocks,
 * the physical limit; the appending loop is shown beside it), p99 at the fixed rate
 * ≤ the best durable peer's. Each row gives the CPU per message beside the figures (MMMQ: the app process; a peer: its
 * server). No rows when the workload did not run; "no result" with an unknown verdict when a side has no figure.
 */
export function embeddedTargets(results: BenchResults): TargetRow[] {
  const mmmq = mmmqOf(results);
  const workload = results.workloads.find((w) => w.id === WORKLOAD);
  if (!mmmq || !workload || workload.notApplicable[mmmq.id]) return [];
  const mine = (key: string) => aggregate(results, WORKLOAD, mmmq.id, key).median;
  const rows: TargetRow[] = [];

  const versusPeer = (metric: (typeof m)[keyof typeof m], cpuKey: string, need: number, target: string) => {
    const peer = best(results, WORKLOAD, metric, isDurablePeer);
    const value = mine(metric.key);
    if (!peer || !Number.isFinite(value)) return rows.push({ target, measured: 'no result', met: undefined });
    const r = value / peer.value;
    const theirs = aggregate(results, WORKLOAD, peer.system.id, cpuKey).median;
    rows.push({
      target,
      measured:
        `MMMQ one app ${figure(value, metric.unit)} (app CPU ${perMessage(mine(cpuKey))}) vs ${peer.system.label} ` +
        `${figure(peer.value, metric.unit)} (server CPU ${perMessage(theirs)}): ${r.toFixed(2)}×`,
      met: metric.better === 'higher' ? r >= need : r <= need,
    });
  };

  versusPeer(
    m.rate,
    m.cpuUs.key,
    EMBEDDED_E2E_RATIO,
    `one Nest app (broker + listener + producer), end to end at saturation ≥ ${EMBEDDED_E2E_RATIO}× the best durable peer's end to end with its own Node client`,
  );

  const produceTarget = `one Nest app, confirmed produce one at a time ≥ ${EMBEDDED_PRODUCE_VS_FDATASYNC}× a bare fdatasync loop (1 KiB write + fdatasync, preallocated: the physical limit) in the app's data dir`;
  const produce = mine(m.produceRate.key);
  const loop = mine(m.fdatasyncRate.key);
  const appending = mine(m.fdatasyncAppendRate.key);
  if (Number.isFinite(produce) && Number.isFinite(loop) && loop > 0) {
    const r = produce / loop;
    const beside = Number.isFinite(appending) ? ` (appending: ${figure(appending, '/s')}, ${(produce / appending).toFixed(2)}×)` : '';
    rows.push({
      target: produceTarget,
      measured: `MMMQ one app ${figure(produce, '/s')} (app CPU ${perMessage(mine(m.produceCpuUs.key))}) vs fdatasync loop ${figure(loop, '/s')}: ${r.toFixed(2)}×${beside}`,
      met: r >= EMBEDDED_PRODUCE_VS_FDATASYNC,
    });
  } else rows.push({ target: produceTarget, measured: 'no result', met: undefined });

  versusPeer(
    m.fixedP99,
    m.fixedCpuUs.key,
    EMBEDDED_P99_RATIO,
    `one Nest app, end to end at ${results.config.ratePerSecond.toLocaleString('en')} msg/s: p99 ≤ the best durable peer's p99`,
  );
  return rows;
}

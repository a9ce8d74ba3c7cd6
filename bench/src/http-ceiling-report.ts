import { aggregate, mmmqOf } from './aggregate';
import type { BenchResults } from './runner';
import { format } from './runner';
import type { TargetRow } from './targets';

/** MMMQ's plain HTTP publishers reach at least this share of the bare node:http server's rate in the same run. */
export const HTTP_CEILING_RATIO = 0.6;

const WORKLOAD = 'http-publishers';
/** The bare node:http server's row (`systems/bare-http.ts`). */
export const NODE_HTTP = 'node-http';

const perMessage = (us: number) => (Number.isFinite(us) ? `${format(us, 'µs')} µs/msg` : 'n/a');

/**
 * Plain HTTP publish against the bare node:http ceiling: the same 64 one-at-a-time publishers, MMMQ storing each
 * message durably, the bare server parsing and discarding it. Rates side by side, each server's CPU per request
 * beside them. No row unless the workload ran; no verdict when a side has no figure.
 */
export function httpCeilingTarget(results: BenchResults): TargetRow | undefined {
  const mmmq = mmmqOf(results);
  const workload = results.workloads.find((w) => w.id === WORKLOAD);
  if (!mmmq || !workload || workload.notApplicable[mmmq.id] || !results.systems.some((s) => s.id === NODE_HTTP)) return undefined;
  const median = (system: string, key: string) => aggregate(results, WORKLOAD, system, key).median;
  const target = `plain HTTP publish ≥ ${HTTP_CEILING_RATIO}× the bare node:http ceiling (${results.config.httpConnections} connections, one 1 KiB JSON POST at a time each, a server that parses and discards)`;
  const mine = median(mmmq.id, 'rate');
  const ceiling = median(NODE_HTTP, 'rate');
  if (!Number.isFinite(mine) || !Number.isFinite(ceiling) || ceiling === 0) return { target, measured: 'no result', met: undefined };
  const r = mine / ceiling;
  return {
    target,
    measured:
      `MMMQ ${format(mine, '/s')}/s (broker CPU ${perMessage(median(mmmq.id, 'brokerCpuUs'))}) vs node:http ${format(ceiling, '/s')}/s ` +
      `(server CPU ${perMessage(median(NODE_HTTP, 'brokerCpuUs'))}): ${r.toFixed(2)}×`,
    met: r >= HTTP_CEILING_RATIO,
  };
}

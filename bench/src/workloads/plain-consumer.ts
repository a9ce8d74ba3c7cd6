import { content } from '../payload';
import { paced } from '../pump';
import { DeliveryTracker } from './end-to-end';
import { BUSIEST, busiestShare, MAX, P50, P99, RATE, type MetricDef, type Workload } from './workload';

/** After the last publish, how long deliveries are still awaited for the latency figures. */
export const PLAIN_DRAIN_GRACE_MS = 10_000;
/** Unacknowledged publishes at most while pacing (as in the fixed-rate workload). */
const MAX_OUTSTANDING = 10_000;
/** Messages published but not yet delivered when the last publish was acknowledged. */
export const LAG: MetricDef = { key: 'lag', label: 'lag at end', unit: '', better: 'lower' };

/** The dispatcher setting of the unordered variant: independent pushes, `maxInFlight` at its default for them (8). */
const UNORDERED = { ordered: false } as const;

/**
 * A consumer that speaks only the plain wire contract (one message per push, the dispatcher defaults of docs/delivery.md § Dispatchers) while
 * messages arrive at a fixed rate: does it keep up? MMMQ only; `members` > 1 shares one consumerId. `unordered`: the
 * dispatcher is registered with `ordered: false`, so several pushes are in flight at once (docs/delivery.md §
 * Unordered pushes); the consumer is the same.
 */
export function plainConsumer(members: number, unordered = false): Workload {
  const who =
    members === 1
      ? 'one plain HTTP consumer: a node:http server'
      : `${members} plain HTTP consumers sharing one consumerId: a node:http server each`;
  const registered = unordered
    ? '`POST /mmmq/dispatchers {"consumerId","host","pattern","ordered":false}` — no `batchSize`: one message per push, up to 8 pushes in flight at once (the `maxInFlight` default of `ordered: false`), each settled on its own'
    : '`POST /mmmq/dispatchers {"consumerId","host","pattern"}` only — no `batchSize`, no `maxInFlight`, the dispatcher defaults: one message per push';
  return {
    id: (members === 1 ? 'plain-consumer' : `plain-consumer-${members}`) + (unordered ? '-unordered' : ''),
    title: (c) =>
      `${members === 1 ? 'Plain HTTP consumer' : `${members} competing plain HTTP consumers`}${unordered ? ', unordered,' : ''} at ${c.ratePerSecond.toLocaleString('en')} msg/s`,
    describe: (c) =>
      `${c.ratePerSecond.toLocaleString('en')} messages/s of ${c.size / 1024} KiB for ${c.plainSeconds} s (${(c.ratePerSecond * c.plainSeconds).toLocaleString('en')} messages) to one topic, on a fixed schedule (open loop, as in the fixed-rate workload), read by ${who}, no MMMQ library, registered with ${registered} — answering \`{"acknowledgement":"ACK"}\` after parsing each push.${members > 1 ? ' Each server registers with the same consumerId, which adds its host to the group.' : ''} *delivered/s* = messages delivered while publishing / the publishing time; *lag at end* = messages published but not yet delivered when the last publish was acknowledged (it keeps up when that stays within 1 s of publishing); latency is from when each message was due to its delivery, over the messages delivered within ${PLAIN_DRAIN_GRACE_MS / 1000} s after the last publish. MMMQ only: the peers have no plain HTTP push contract.`,
    metrics: [RATE('delivered/s'), LAG, P50, P99, MAX, ...(members > 1 ? [BUSIEST] : [])],
    headline: 'rate',
    hardLimitSeconds: (c) => c.roundTimeoutSeconds * 3 + c.plainSeconds + PLAIN_DRAIN_GRACE_MS / 1000,
    applies: (system) => (system.plainConsumers ? true : 'no plain HTTP push contract'),
    async run(system, ctx) {
      const c = ctx.config;
      const n = c.ratePerSecond * c.plainSeconds;
      const plan = ctx.plan(1, 1);
      await system.declare(plan);
      const tracker = new DeliveryTracker(n, 1);
      const perMember = new Array<number>(members).fill(0);
      const onMessage = (member: number, message: Parameters<typeof tracker.onMessage>[1]) => {
        perMember[member]++;
        tracker.onMessage(0, message);
      };
      const handle = await system.plainConsumers!(plan, members, onMessage, unordered ? UNORDERED : undefined);
      try {
        await ctx.startSampling();
        const start = performance.now();
        await paced(n, c.ratePerSecond, MAX_OUTSTANDING, (i, due) => system.publish(plan.topics[0], content(i, due, c.size)));
        const end = performance.now();
        const delivered = tracker.delivered;
        await ctx.stopSampling();
        const incomplete = await tracker.wait(PLAIN_DRAIN_GRACE_MS);
        const seconds = (end - start) / 1000;
        const notes = [
          seconds > c.plainSeconds * 1.1 ? `publishing took ${seconds.toFixed(1)} s instead of ${c.plainSeconds} s` : '',
          incomplete
            ? `${PLAIN_DRAIN_GRACE_MS / 1000} s after the last publish: ${incomplete}; the latencies cover the delivered messages`
            : '',
        ];
        const { p50, p99, max } = tracker.latencies.summary();
        return {
          metrics: {
            rate: delivered / seconds,
            lag: n - delivered,
            p50,
            p99,
            max,
            ...(members > 1 ? { busiest: busiestShare(perMember) } : {}),
          },
          // Sampled while publishing: per message published then (all of them delivered, where the consumer keeps up).
          messages: n,
          note: notes.filter(Boolean).join('; ') || undefined,
        };
      } finally {
        await handle.close();
        await system.drop(plan);
      }
    },
  };
}

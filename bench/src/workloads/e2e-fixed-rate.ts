import { content } from '../payload';
import { paced } from '../pump';
import { DeliveryTracker } from './end-to-end';
import { MAX, P50, P99, RATE, type Workload } from './workload';

/** Open-loop load at a fixed rate; latency from when each message was due, so a stall shows in full. */
export const e2eFixedRate: Workload = {
  id: 'e2e-fixed-rate',
  title: (c) => `End to end at a fixed ${c.ratePerSecond.toLocaleString('en')} msg/s`,
  describe: (c) =>
    `${c.ratePerSecond.toLocaleString('en')} messages/s of ${c.size / 1024} KiB for ${c.rateSeconds} s (${(c.ratePerSecond * c.rateSeconds).toLocaleString('en')} messages) to one topic with one consumer, on a fixed schedule (open loop, at most 10,000 unacknowledged). Latency is from when each message was due to its delivery, so a system that falls behind shows it. msgs/s is the delivery rate achieved.`,
  metrics: [P50, P99, MAX, RATE('delivered/s')],
  headline: 'p99',
  applies: () => true,
  async run(system, ctx) {
    const c = ctx.config;
    const n = c.ratePerSecond * c.rateSeconds;
    const plan = ctx.plan(1, 1);
    await system.declare(plan);
    const tracker = new DeliveryTracker(n, 1);
    const handle = await system.consume(plan, tracker.onMessage);
    try {
      await ctx.startSampling();
      const start = performance.now();
      await paced(n, c.ratePerSecond, 10_000, (i, due) => system.publish(plan.topics[0], content(i, due, c.size)));
      const note = await tracker.wait(c.roundTimeoutSeconds * 1000);
      await ctx.stopSampling();
      const end = tracker.delivered === tracker.expected ? tracker.lastAt : performance.now();
      const { p50, p99, max } = tracker.latencies.summary();
      return { metrics: { p50, p99, max, rate: tracker.delivered / ((end - start) / 1000) }, note };
    } finally {
      await handle.close();
      await system.drop(plan);
    }
  },
};

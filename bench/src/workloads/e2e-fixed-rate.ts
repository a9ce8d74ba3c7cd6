import { OPEN_LOOP_MAX_OUTSTANDING, openLoopEndToEnd } from './open-loop';
import { MAX, P50, P99, RATE, type Workload } from './workload';

/** Open-loop load at a fixed rate; latency from when each message was due, so a stall shows in full. */
export const e2eFixedRate: Workload = {
  id: 'e2e-fixed-rate',
  title: (c) => `End to end at a fixed ${c.ratePerSecond.toLocaleString('en')} msg/s`,
  describe: (c) =>
    `${c.ratePerSecond.toLocaleString('en')} messages/s of ${c.size / 1024} KiB for ${c.rateSeconds} s (${(c.ratePerSecond * c.rateSeconds).toLocaleString('en')} messages) to one topic with one consumer, on a fixed schedule (open loop, at most ${OPEN_LOOP_MAX_OUTSTANDING.toLocaleString('en')} unacknowledged). Latency is from when each message was due to its delivery, so a system that falls behind shows it. msgs/s is the delivery rate achieved.`,
  metrics: [P50, P99, MAX, RATE('delivered/s')],
  headline: 'p99',
  applies: () => true,
  run: (system, ctx) => openLoopEndToEnd(system, ctx, ctx.config.ratePerSecond * ctx.config.rateSeconds, ctx.config.ratePerSecond),
};

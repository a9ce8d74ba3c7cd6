import { content } from '../payload';
import { LatencyRecorder } from '../stats';
import { P50, P99, RATE, type Workload } from './workload';

/** One publish at a time: the next is sent once the previous one was acknowledged as stored. */
export const publishOne: Workload = {
  id: 'publish-one',
  title: () => 'Confirmed publish, one at a time',
  describe: (c) =>
    `${c.publishOne.toLocaleString('en')} messages of ${c.size / 1024} KiB, each sent only after the previous one was acknowledged (publisher confirm, XADD reply, PubAck, MMMQ ACK). Latency is publish call → acknowledgement. No consumer runs (one queue/group exists so RabbitMQ routes and stores the messages).`,
  metrics: [RATE(), P50, P99],
  headline: 'rate',
  applies: () => true,
  measuresPublishing: true,
  async run(system, ctx) {
    const plan = ctx.plan(1, 1);
    await system.declare(plan);
    const n = ctx.config.publishOne;
    const latencies = new LatencyRecorder(n);
    try {
      await ctx.startSampling();
      const start = performance.now();
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await system.publish(plan.topics[0], content(i, t, ctx.config.size));
        latencies.record(performance.now() - t);
      }
      const seconds = (performance.now() - start) / 1000;
      await ctx.stopSampling();
      const { p50, p99 } = latencies.summary();
      return { metrics: { rate: n / seconds, p50, p99 } };
    } finally {
      await system.drop(plan);
    }
  },
};

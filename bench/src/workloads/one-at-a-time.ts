import { content } from '../payload';
import { LatencyRecorder } from '../stats';
import type { MessagePath } from '../systems/system';
import type { RoundContext, RoundOutcome } from './workload';

/**
 * Confirmed publish, one at a time: `messages` to one topic, each sent only once the previous one was acknowledged as
 * stored. Rate = messages / elapsed; latency = publish call → acknowledgement. The publish-one workload's path, also
 * the embedded workload's one-at-a-time produce.
 */
export async function publishOneAtATime(system: MessagePath, ctx: RoundContext, messages: number): Promise<RoundOutcome> {
  const plan = ctx.plan(1, 1);
  await system.declare(plan);
  const latencies = new LatencyRecorder(messages);
  try {
    await ctx.startSampling();
    const start = performance.now();
    for (let i = 0; i < messages; i++) {
      const t = performance.now();
      await system.publish(plan.topics[0], content(i, t, ctx.config.size));
      latencies.record(performance.now() - t);
    }
    const seconds = (performance.now() - start) / 1000;
    await ctx.stopSampling();
    const { p50, p99 } = latencies.summary();
    return { metrics: { rate: messages / seconds, p50, p99 }, messages };
  } finally {
    await system.drop(plan);
  }
}

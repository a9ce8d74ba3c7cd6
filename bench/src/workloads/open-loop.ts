import { content } from '../payload';
import { paced } from '../pump';
import type { MessagePath } from '../systems/system';
import { DeliveryTracker } from './end-to-end';
import type { RoundContext, RoundOutcome } from './workload';

/** Unacknowledged publishes at once before the fixed schedule slips (and the latency shows it). */
export const OPEN_LOOP_MAX_OUTSTANDING = 10_000;

/**
 * End to end on a fixed schedule (open loop): `perSecond` messages a second to one topic with one consumer; latency
 * from when each message was due to its delivery, so a stall shows in full. The e2e-fixed-rate workload's path, also
 * the embedded workload's p99 at 5,000 msg/s.
 */
export async function openLoopEndToEnd(system: MessagePath, ctx: RoundContext, messages: number, perSecond: number): Promise<RoundOutcome> {
  const c = ctx.config;
  const plan = ctx.plan(1, 1);
  await system.declare(plan);
  const tracker = new DeliveryTracker(messages, 1);
  const handle = await system.consume(plan, tracker.onMessage);
  try {
    await ctx.startSampling();
    const start = performance.now();
    await paced(messages, perSecond, OPEN_LOOP_MAX_OUTSTANDING, (i, due) => system.publish(plan.topics[0], content(i, due, c.size)));
    const note = await tracker.wait(c.roundTimeoutSeconds * 1000);
    await ctx.stopSampling();
    const end = tracker.delivered === tracker.expected ? tracker.lastAt : performance.now();
    const { p50, p99, max } = tracker.latencies.summary();
    const notes = [note, handle.note?.()].filter(Boolean).join('; ') || undefined;
    return { metrics: { p50, p99, max, rate: tracker.delivered / ((end - start) / 1000) }, messages, note: notes };
  } finally {
    await handle.close();
    await system.drop(plan);
  }
}

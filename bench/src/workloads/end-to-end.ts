import { content } from '../payload';
import { pump } from '../pump';
import { LatencyRecorder } from '../stats';
import type { ConsumeHandle, MessagePath, OnMessage, TopicPlan } from '../systems/system';
import type { RoundContext, RoundOutcome } from './workload';

/** Counts deliveries per group, tells duplicates from new messages, and resolves once every group has all. */
export class DeliveryTracker {
  readonly latencies: LatencyRecorder;
  private readonly seen: Uint8Array[];
  private unique = 0;
  duplicates = 0;
  /** Deliveries of messages this round never published (a bug in a driver). */
  unexpected = 0;
  firstAt = 0;
  lastAt = 0;
  private resolve!: () => void;
  readonly complete: Promise<void>;

  constructor(
    readonly messages: number,
    groups: number,
    private readonly recordLatency = true,
  ) {
    this.latencies = new LatencyRecorder(recordLatency ? messages * groups : 0);
    this.seen = Array.from({ length: groups }, () => new Uint8Array(messages));
    this.complete = new Promise((resolve) => (this.resolve = resolve));
    if (messages === 0) this.resolve();
  }

  get expected(): number {
    return this.messages * this.seen.length;
  }

  get delivered(): number {
    return this.unique;
  }

  readonly onMessage = (group: number, c: { seq: number; t: number }): void => {
    const now = performance.now();
    const seen = this.seen[group];
    if (seen === undefined || seen[c.seq] === undefined) {
      this.unexpected++;
      return;
    }
    if (seen[c.seq]) {
      this.duplicates++;
      return;
    }
    seen[c.seq] = 1;
    if (this.unique === 0) this.firstAt = now;
    this.lastAt = now;
    if (this.recordLatency) this.latencies.record(now - c.t);
    if (++this.unique === this.expected) this.resolve();
  };

  /** Waits for every delivery, at most `timeoutMs`; returns a note when some are missing. */
  async wait(timeoutMs: number): Promise<string | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      this.complete.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
    ]);
    clearTimeout(timer);
    const notes: string[] = [];
    if (timedOut) notes.push(`timed out after ${Math.round(timeoutMs / 1000)} s with ${this.unique} of ${this.expected} delivered`);
    if (this.duplicates) notes.push(`${this.duplicates} duplicate deliveries`);
    if (this.unexpected) notes.push(`${this.unexpected} deliveries of unknown messages`);
    return notes.length ? notes.join('; ') : undefined;
  }
}

export interface EndToEndOptions {
  messages: number;
  size: number;
  topics: number;
  groups: number;
  /** How the consumers start; default `system.consume` (one consumer per group). */
  consume?: (plan: TopicPlan, onMessage: OnMessage) => Promise<ConsumeHandle>;
}

/**
 * Publish → delivered → acknowledged at saturation: consumers first, then every message published with at
 * most `window` unconfirmed, round-robin over the topics. Rate = deliveries / (last delivery − first publish).
 */
export async function endToEnd(
  system: MessagePath,
  ctx: RoundContext,
  o: EndToEndOptions,
): Promise<RoundOutcome & { seconds: number; duplicates: number }> {
  const plan = ctx.plan(o.topics, o.groups);
  await system.declare(plan);
  const tracker = new DeliveryTracker(o.messages, o.groups);
  const handle = await (o.consume ?? ((p, onMessage) => system.consume(p, onMessage)))(plan, tracker.onMessage);
  try {
    await ctx.startSampling();
    const start = performance.now();
    await pump(o.messages, ctx.config.window, (i) => system.publish(plan.topics[i % o.topics], content(i, performance.now(), o.size)));
    const note = await tracker.wait(ctx.config.roundTimeoutSeconds * 1000);
    await ctx.stopSampling();
    const end = tracker.delivered === tracker.expected ? tracker.lastAt : performance.now();
    const seconds = (end - start) / 1000;
    const { p50, p99, max } = tracker.latencies.summary();
    const notes = [note, handle.note?.()].filter(Boolean).join('; ') || undefined;
    return {
      metrics: { rate: tracker.delivered / seconds, p50, p99, max },
      messages: o.messages,
      note: notes,
      seconds,
      duplicates: tracker.duplicates,
    };
  } finally {
    await handle.close();
    await system.drop(plan);
  }
}

import type { SubscriptionSnapshot } from '../storage/subscription-snapshot';

/** What a seek would do to one subscription, in messages (offsets). */
export interface SeekCounts {
  /** Settled messages at or after the target: delivered again. */
  redeliver: number;
  /** Unsettled messages before the target: never delivered (any more). */
  skip: number;
}

/**
 * The state a seek to `target` writes: the cursor at the target, nothing settled past it (a seek back re-delivers
 * everything from there, acknowledged or not, as Kafka's and Pulsar's do) and the delivery counts start over. The
 * delivery mark stays: a message delivered before is marked `redelivered` when the replay delivers it again.
 */
export function seekSnapshot(current: SubscriptionSnapshot, target: number): SubscriptionSnapshot {
  return { cursor: target, settled: [], counts: [], deliveredMark: Math.max(current.deliveredMark, target) };
}

/** How many messages of `[start, tail)` a seek from `current` to `target` re-delivers and skips. */
export function seekCounts(current: SubscriptionSnapshot, target: number, tail: number): SeekCounts {
  const { cursor, settled } = current;
  const settledWithin = (first: number, end: number) =>
    settled.reduce((sum, [from, to]) => sum + Math.max(0, Math.min(to, end) - Math.max(from, first)), 0);
  const redeliver = Math.max(0, cursor - target) + settledWithin(Math.max(target, cursor), tail);
  const skip = target > cursor ? target - cursor - settledWithin(cursor, target) : 0;
  return { redeliver, skip };
}

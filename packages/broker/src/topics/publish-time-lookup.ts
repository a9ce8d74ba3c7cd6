import { decodeEnvelopeHead } from '../format/message-envelope';
import { MalformedEnvelopeError } from '../format/format.errors';
import { CorruptionError } from '../storage/storage.errors';
import type { TopicQueue } from '../storage/topic-queue';

/** The publish time (epoch ms) of the message at an offset; undefined when it has none (corrupt, not an envelope of this broker's). */
export type PublishTimeAt = (offset: number) => Promise<number | undefined>;

/**
 * Entries without a publish time a probe walks past before it gives up on its half: the search then treats that half
 * as published at or after the time, so a damaged run re-delivers a few messages too many rather than skipping any.
 */
export const UNTIMED_PROBE_MAX = 16;

/**
 * The first offset of `[start, end)` whose message was published at or after `time` (epoch ms); `end` when none was.
 * A binary search over the log through its offset index: O(log n) single-entry reads, never a scan. It relies on
 * publish times rising with offsets, which holds as far as the broker's wall clock does (each message carries the
 * broker's `Date.now()` of its publish, in ms): a clock stepped back, or publishes of one commit group stamped in
 * another order, can put the answer off by the messages published within that disorder.
 */
export async function firstOffsetAtOrAfter(time: number, start: number, end: number, timeAt: PublishTimeAt): Promise<number> {
  let low = start;
  let high = end;
  while (low < high) {
    const middle = low + Math.floor((high - low) / 2);
    const probe = await timedFrom(middle, high, timeAt);
    if (probe === undefined || probe.time >= time) high = middle;
    else low = probe.offset + 1;
  }
  return low;
}

/** The first entry at or after `from` (below `end`, within {@link UNTIMED_PROBE_MAX}) that has a publish time. */
async function timedFrom(from: number, end: number, timeAt: PublishTimeAt): Promise<{ offset: number; time: number } | undefined> {
  for (let offset = from; offset < Math.min(end, from + UNTIMED_PROBE_MAX); offset++) {
    const time = await timeAt(offset);
    if (time !== undefined) return { offset, time };
  }
  return undefined;
}

/** Reads publish times from a topic's log, one entry per probe (its head only is decoded). */
export function publishTimesOf(queue: TopicQueue): PublishTimeAt {
  return async (offset) => {
    try {
      const payload = await queue.peek(offset);
      return payload === null ? undefined : (decodeEnvelopeHead(payload).publishedAt ?? undefined);
    } catch (error) {
      // A corrupt entry has no time to offer: the search walks past it. A failing disk fails the seek (503).
      if (error instanceof CorruptionError || error instanceof MalformedEnvelopeError) return undefined;
      throw error;
    }
  };
}

import type { ClosedSegment } from '../storage/segment-file-chain';
import type { ResolvedTopicPolicy } from '../topics/topic-policy.options';

/** A closed segment with the time its newest message was written (its data file's mtime, epoch ms). */
export interface AgedSegment extends ClosedSegment {
  modifiedAt: number;
}

export interface RetentionInput {
  /** The topic's closed segments (never the tail), oldest first. */
  segments: readonly AgedSegment[];
  /** Bytes of every segment, the tail's included. */
  totalBytes: number;
  now: number;
  retention: Pick<ResolvedTopicPolicy['retention'], 'ms' | 'bytes'>;
  /** Offsets at or past it are still needed by a subscription (`Infinity`: none, or `whenNeeded: delete`). */
  neededFrom: number;
}

export interface RetentionPlan {
  /** Delete the oldest segments ending at or below this offset (the current start offset: none). */
  deleteEnd: number;
  /** Segments to delete. */
  count: number;
  /** Bytes retention would delete but a subscription still needs (`whenNeeded: keep`). */
  heldBytes: number;
}

/**
 * Which oldest segments retention deletes: a segment is due when its newest message is older than `retention.ms`
 * or the topic holds more than `retention.bytes` without it and the older ones. Only a run from the oldest is ever
 * deleted, and only up to the first segment a subscription still needs; the due segments from there on are held.
 */
export function planRetention({ segments, totalBytes, now, retention, neededFrom }: RetentionInput): RetentionPlan {
  let remaining = totalBytes;
  let deleteEnd = segments[0]?.startOffset ?? 0;
  let count = 0;
  let heldBytes = 0;
  for (const segment of segments) {
    const tooOld = retention.ms !== null && now - segment.modifiedAt > retention.ms;
    const tooBig = retention.bytes !== null && remaining > retention.bytes;
    if (!tooOld && !tooBig) break;
    remaining -= segment.bytes;
    if (heldBytes > 0 || segment.endOffset > neededFrom) {
      heldBytes += segment.bytes;
      continue;
    }
    deleteEnd = segment.endOffset;
    count++;
  }
  return { deleteEnd, count, heldBytes };
}

import { parseIsoTime, SeekPosition } from '@mmmq/core';
import type { TopicQueue } from '../storage/topic-queue';
import { firstOffsetAtOrAfter, publishTimesOf } from './publish-time-lookup';

/**
 * The offset `position` (a seek's target, a new subscription's start) names in a topic, within what it retains (`[startOffset, tailOffset]`): an offset outside is
 * moved to the nearest end of that range, a time to the first message published at or after it (the tail if none).
 */
export async function offsetAt(queue: TopicQueue, position: SeekPosition): Promise<number> {
  const start = queue.startOffset;
  const tail = queue.tailOffset;
  if (position === 'beginning') return start;
  if (position === 'end') return tail;
  if ('offset' in position) return Math.min(Math.max(position.offset, start), tail);
  return firstOffsetAtOrAfter(parseIsoTime('time', position.time), start, tail, publishTimesOf(queue));
}

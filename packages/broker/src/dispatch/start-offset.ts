import type { TopicQueue } from '../storage/topic-queue';
import type { StartFrom } from './dispatcher-definition';
import { offsetAt } from '../topics/topic-position';

/**
 * Where a new subscription starts (used only when it has no checkpoint): the topic's start offset — what retention
 * deleted was never this subscription's to skip — or, when `tail` is known (a subscription that is new, not one
 * continuing), the tail for `latest` and a time's first message for `{time}` (a time in the future: the tail).
 */
export async function startOffsetOf(queue: TopicQueue, startFrom: StartFrom, tail: number | undefined): Promise<number> {
  if (tail === undefined || startFrom === 'earliest') return queue.startOffset;
  if (startFrom === 'latest') return tail;
  return offsetAt(queue, startFrom);
}

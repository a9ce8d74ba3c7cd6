import { Injectable } from '@nestjs/common';
import type { TopicQueue } from '../storage/topic-queue';
import { TopicCancellations } from './topic-cancellations';

/**
 * Each topic's {@link TopicCancellations}: written by `POST /mmmq/scheduled/cancel`, read by every subscription
 * before it hands out a due scheduled message.
 */
@Injectable()
export class ScheduledCancellations {
  private readonly byTopic = new Map<string, TopicCancellations>();

  of(queue: TopicQueue): TopicCancellations {
    let cancellations = this.byTopic.get(queue.topic.name);
    // A topic opened again is read again: what was known of the old queue says nothing of the new one.
    if (cancellations?.queue !== queue) this.byTopic.set(queue.topic.name, (cancellations = new TopicCancellations(queue)));
    return cancellations;
  }
}

import { Topic } from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import { TopicQueueContainer } from '../storage/topic-queue-container';
import { PublishIntake } from './publish-intake';
import { CancelledMessage, cancelScheduled } from './scheduled-cancellation';
import { ScheduledCancellations } from './scheduled-cancellations';

/** Cancels scheduled messages for `POST /mmmq/scheduled/cancel` and the in-process producer, with the same rules. */
@Injectable()
export class ScheduledCanceller {
  constructor(
    private readonly queues: TopicQueueContainer,
    private readonly intake: PublishIntake,
    private readonly cancellations: ScheduledCancellations,
  ) {}

  /** See {@link cancelScheduled}: resolves once the cancellation is durable. */
  cancel(request: { topic: Topic; id: string; offset?: number }): Promise<CancelledMessage> {
    return cancelScheduled(this.queues.get(request.topic.name), this.intake, this.cancellations, request);
  }
}

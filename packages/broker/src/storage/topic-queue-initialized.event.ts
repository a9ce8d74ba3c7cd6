import { TopicQueue } from './topic-queue';

/** Emitted through `@nestjs/event-emitter` when a topic's queue is opened (created on first publish or restored). */
export class TopicQueueInitializedEvent {
  static readonly eventName = 'mmmq.topic-queue.initialized';

  constructor(readonly queue: TopicQueue) {}
}

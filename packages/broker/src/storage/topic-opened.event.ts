import type { TopicQueue } from './topic-queue';

/**
 * On the broker's bus (`BrokerBus`): a topic's queue is open and readable — created by a first publish, or
 * restored at boot. Internal wiring between the log and delivery, not a host lifecycle event (`mmmq.topic.created`).
 */
export class TopicOpenedEvent {
  static readonly NAME = 'mmmq.log.topic-opened';
  constructor(readonly queue: TopicQueue) {}
}

/** Payload of `mmmq.topic.created`. */
export interface TopicCreatedEvent {
  topic: string;
  /** A broker-owned topic (`__dlq.{consumerId}` dead letters, `__redrive.{consumerId}`), not one a producer named. */
  reserved: boolean;
}

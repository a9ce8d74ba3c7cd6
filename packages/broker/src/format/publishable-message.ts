import type { DeliveryMode, MessageHeaders, MessageProperties, Topic } from '@mmmq/core';

/**
 * One validated message of a publish request, its content still the producer's bytes; `ttlMs` / `expiresAt` /
 * `priority` (MessageProperties) when given.
 */
export interface PublishableMessage extends MessageProperties {
  topic: Topic;
  /** The producer's id, or a UUID the broker assigned. */
  id: string;
  /** True when `id` is the producer's: only those are remembered for de-duplication (a UUID never collides). */
  idFromProducer?: boolean;
  headers: MessageHeaders;
  content: Buffer;
  /** As the producer asked; absent: the topic's default (`TopicPolicies`). */
  deliveryMode?: DeliveryMode;
  /** Set by the broker only: a cancellation of the scheduled message at this offset (see `MessageEnvelope.cancels`). */
  cancels?: number;
}

import type { DeliveryRequest, MessageHeaders } from '@mmmq/core';

/**
 * What a listener may learn about the message besides its content; declare it as the handler's second
 * parameter. It is a class, not an interface, so that discovery can tell it from a second content parameter.
 */
export class MessageContext {
  /** The dispatcher this delivery is for (the listener's consumer id). */
  readonly consumerId: string;
  /** The producer's message id, the same on every redelivery: the key for de-duplication. */
  readonly id: string;
  readonly topic: string;
  readonly headers: Readonly<MessageHeaders>;
  /** Position of the message in its topic. */
  readonly offset: number;
  /** Attempts to deliver this message to this listener in the broker's current run, starting at 1. */
  readonly deliveryCount: number;
  /** True when this listener may have seen the message before. */
  readonly redelivered: boolean;
  /** Epoch milliseconds, or null when the broker does not know. */
  readonly publishedAt: number | null;

  constructor(consumerId: string, delivery: DeliveryRequest) {
    this.consumerId = consumerId;
    this.id = delivery.id;
    this.topic = delivery.topic;
    this.headers = delivery.headers;
    this.offset = delivery.offset;
    this.deliveryCount = delivery.deliveryCount;
    this.redelivered = delivery.redelivered;
    this.publishedAt = delivery.publishedAt;
  }
}

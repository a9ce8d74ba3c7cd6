import type { Acknowledgement, BrokerAcknowledgement } from './acknowledgement';
import type { MessageHeaders } from './message';

/** Path of the publish endpoint on the broker and of the delivery endpoint on every consumer. */
export const MESSAGES_PATH = '/mmmq/messages';

/** Tells a consumer which of its subscriptions a pushed message is for. */
export const CONSUMER_ID_HEADER = 'mmmq-consumer-id';

/** Body of `POST /mmmq/messages` on the broker. */
export interface PublishRequest<T = unknown> {
  /** The object form is what the original Java producer sends. */
  topic: string | { name: string };
  content: T;
  /** Assigned by the broker when absent. */
  id?: string;
  headers?: MessageHeaders;
}

export interface PublishBatchRequest<T = unknown> {
  messages: PublishRequest<T>[];
}

/** Where one published message was stored. */
export interface PublishedMessage {
  id: string;
  topic: string;
  offset: number;
}

/** Sent only once the message is durable. */
export interface PublishResponse extends BrokerAcknowledgement {
  id: string;
  topic: string;
  offset: number;
}

export interface PublishBatchResponse {
  acknowledgement: Acknowledgement;
  messages: PublishedMessage[];
}

/** Body the broker POSTs to `{consumer host}/mmmq/messages`. */
export interface DeliveryRequest<T = unknown> {
  id: string;
  topic: string;
  content: T;
  headers: MessageHeaders;
  offset: number;
  deliveryCount: number;
  redelivered: boolean;
  /** Epoch milliseconds; null when the broker does not know it. */
  publishedAt: number | null;
}

import type { PublishedMessage } from '@mmmq/core';
import type { OutgoingMessage } from '../outgoing-message';

/**
 * Sends prepared messages to a broker. One call is one attempt: retrying is the producer's business, so a
 * gateway only reports what happened, as a `BrokerUnreachableError` or a `BrokerResponseError`.
 */
export abstract class BrokerGateway {
  abstract publish(message: OutgoingMessage): Promise<PublishedMessage>;

  /** Stores all messages (one topic) at consecutive offsets, or none. */
  abstract publishBatch(messages: readonly OutgoingMessage[]): Promise<PublishedMessage[]>;

  /** Releases connections once nothing is in flight; idempotent. */
  abstract close(): Promise<void>;
}

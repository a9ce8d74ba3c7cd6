import type { PublishedMessage, TlsClientOptions } from '@mmmq/core';
import type { OutgoingMessage } from '../outgoing-message';

/** How a gateway proves who it is and whom it trusts. */
export interface BrokerAccess {
  /** Sent as `Authorization: Bearer <token>` over HTTP, as the AUTH request on the stream. */
  token?: string;
  /** Certificates to trust for an `https://` or `mmmqs://` broker. */
  tls?: TlsClientOptions;
}

/**
 * Sends prepared messages to a broker. One call is one attempt: retrying is the producer's business, so a
 * gateway only reports what happened, as a `BrokerUnreachableError` or a `BrokerResponseError`.
 */
export abstract class BrokerGateway {
  abstract publish(message: OutgoingMessage): Promise<PublishedMessage>;

  /** Stores all messages, of any topics, as one commit (each topic's at consecutive offsets), or none. */
  abstract publishBatch(messages: readonly OutgoingMessage[]): Promise<PublishedMessage[]>;

  /**
   * Failed requests so far, counted before the caller hears of the failure. Only a gateway that keeps several
   * requests of a topic in flight needs it: a change means requests sent after the failed one may fail too.
   */
  get failures(): number {
    return 0;
  }

  /** Releases connections once nothing is in flight; idempotent. */
  abstract close(): Promise<void>;
}

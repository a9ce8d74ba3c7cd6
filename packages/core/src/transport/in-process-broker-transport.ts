import type { Reply } from '../reply/reply';
import { MmmqTransport } from './transport';

/**
 * The MMMQ broker of this very application (`MmmqBrokerModule`), reached without HTTP or a socket: its publisher
 * commits through the broker's intake, and its subscriber makes each listener a member of its subscriptions, fed
 * from the same ledger as push and pull members, once a message's journal record is durable. The broker module
 * provides it; `MmmqConsumerModule` and `MmmqProducerModule` find it by this class and use it unless told otherwise
 * (docs/delivery.md, "In process, push or pull").
 */
export abstract class InProcessBrokerTransport extends MmmqTransport {
  /**
   * Relays a reply to a requester that collects its replies from this broker over HTTP (its reply inbox); false when
   * no such inbox is known, so the reply is dropped. A requester of this process is handed its replies directly.
   */
  abstract relayReply(reply: Reply): boolean;
}

/** The transport's name in logs and error messages. */
export const IN_PROCESS_TRANSPORT_NAME = 'in-process';

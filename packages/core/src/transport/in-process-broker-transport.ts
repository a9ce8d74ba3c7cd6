import { MmmqTransport } from './transport';

/**
 * The MMMQ broker of this very application (`MmmqBrokerModule`), reached without HTTP or a socket: its publisher
 * commits through the broker's intake, and its subscriber makes each listener a member of its subscriptions, fed
 * from the same ledger as push and pull members, once a message's journal record is durable. The broker module
 * provides it; `MmmqConsumerModule` and `MmmqProducerModule` find it by this class and use it unless told otherwise
 * (docs/delivery.md, "In process, push or pull").
 */
export abstract class InProcessBrokerTransport extends MmmqTransport {}

/** The transport's name in logs and error messages. */
export const IN_PROCESS_TRANSPORT_NAME = 'in-process';

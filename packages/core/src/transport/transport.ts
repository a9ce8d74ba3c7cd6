import type { ConsumerAcknowledgement } from '../acknowledgement';
import type { BacklogLimit } from '../backlog-limit';
import type { StartFrom } from '../start-from';
import type { DeliveryRequest, PublishedMessage } from '../wire';
import type { TransportMessage } from './transport-message';

/** Options of one publish attempt. */
export interface TransportPublishOptions {
  /**
   * The caller gave up on the attempt (the producer's `timeoutMs`). Once it aborts before a message was handed to the
   * connection, that message is not sent and the call rejects; a message handed over already may still arrive, so
   * its outcome is unknown, as after any timeout (the producer retries it with the same id). A transport that hands
   * messages over at once (the in-memory one) may ignore it.
   */
  signal?: AbortSignal;
}

/** A scheduled message to cancel: its id, and where it is stored (the publish's ACK) when known, which spares a search. */
export interface ScheduledMessageRef {
  id: string;
  offset?: number;
}

/** A scheduled message cancelled before its time: it is never delivered. */
export interface CancelledScheduledMessage {
  topic: string;
  id: string;
  offset: number;
  /** Epoch ms it was due at. */
  dueAt: number;
}

/**
 * Sends messages for a producer. One call is one attempt: retrying (always with the same ids) is the producer's
 * business. A publish resolves once the transport has the message for good (the MMMQ broker's ACK, a RabbitMQ
 * publisher confirm). Errors: an `MmmqValidationError` when the transport refuses the message itself (never
 * retried); {@link TransportRejectedError} when the other side refused it for good; {@link TransportClosedError}
 * when the publisher is closed (nothing was sent, not retried); anything else means the outcome
 * is unknown or the message was not sent, and the producer retries it with the same id.
 */
export interface TransportPublisher {
  publish(message: TransportMessage, options?: TransportPublishOptions): Promise<PublishedMessage>;
  /**
   * Sends all messages, of any topics. The MMMQ broker stores them as one commit or none; a transport that cannot
   * promise that says so in its documentation (RabbitMQ confirms each message, so a failed batch may be partly sent,
   * and a retry re-sends all of it with the same ids).
   */
  publishBatch(messages: readonly TransportMessage[], options?: TransportPublishOptions): Promise<PublishedMessage[]>;
  /** Releases connections once nothing is in flight. Idempotent. */
  close(): Promise<void>;
  /**
   * Optional: cancels a scheduled message before its time; resolves once that is durable. Absent: the transport
   * cannot (the producer refuses the call, naming it).
   */
  cancelScheduled?(topic: string, message: ScheduledMessageRef): Promise<CancelledScheduledMessage>;
  /**
   * Failed attempts so far, counted before the caller hears of the failure; only for a publisher that keeps several
   * requests of a topic in flight (the MMMQ broker's publish stream): a change tells the producer that requests
   * sent after the failed one may fail too, so it sends no more of that topic until the failed ones are resent in
   * order. Absent: 0.
   */
  readonly failures?: number;
}

/** What a subscriber is told of one listener. */
export interface TransportListener {
  /** Its subscription's name: every instance with this id shares the messages (competing consumers). */
  consumerId: string;
  /** An MMMQ topic pattern (`order.*`, `order.**`). */
  pattern: string;
  /** Messages of this listener handled at once; 1 keeps the transport's order. */
  concurrency: number;
  /** When its messages count as settled (the consumer's `AckMode`). */
  ackMode: 'auto' | 'manual' | 'dupsOk' | 'none';
  /** Where a new subscription starts in topics that hold messages already; absent: the transport's default. */
  startFrom?: StartFrom;
  /** Header selector (docs/destinations.md#selectors); absent: every message. */
  selector?: string;
  /** The subscription's backlog limit; absent: none. */
  backlogLimit?: BacklogLimit;
  /** The first this many live members of the consumer id receive, the others wait as ordered backups; absent: all. */
  maxActiveMembers?: number;
  /** The most live members the consumer id admits; absent: no cap. */
  maxMembers?: number;
  /** False: the listener gives up the order of its deliveries, keeping per-ordering-key order; absent: ordered. */
  ordered?: false;
}

/**
 * A message as a transport hands it to the consumer. `offset` is the message's position in its topic where the
 * transport has one (−1 where it has none); `deliveryCount` starts at 1; `lastAttempt` says a NACK dead-letters it.
 */
export type TransportDelivery = Omit<DeliveryRequest, 'lease'>;

/**
 * Handles one delivery and says how it ended: ACK, or NACK (`retry: false` dead-letters it at once, `delayMs` asks
 * for a later redelivery). Rejects only when the consumer could not take the delivery (it is shutting down, its
 * queue is full): nothing was handled, so the transport delivers it again without counting the attempt where it can.
 */
export type TransportHandler = (delivery: TransportDelivery) => Promise<ConsumerAcknowledgement>;

/**
 * Handles deliveries of one listener handed over together (the MMMQ broker's batched pushes) as one unit: taken or
 * refused whole, handled in their order; one acknowledgement per delivery, in that order. Rejects, as
 * {@link TransportHandler} does, only when the consumer could not take them: none was handled. `onSettled`, when
 * given, hears each delivery's acknowledgement as soon as its handler is done (a streamed reply settles it then).
 */
export type TransportBatchHandler = (
  deliveries: TransportDelivery[],
  onSettled?: (index: number, acknowledgement: ConsumerAcknowledgement) => void,
  /** True when the sender relays a request's reply carried in its acknowledgement (`reply`): none is sent apart. */
  carriesReplies?: boolean,
) => Promise<ConsumerAcknowledgement[]>;

/**
 * What the consumer does with a delivery while its worker queue is full: `wait` for room (a transport that bounds
 * what it hands over, by a prefetch, until each is settled), or `refuse` it, its handler rejecting at once, for a
 * transport that sends without such a bound and sends a refused delivery again later (the MMMQ broker's push).
 */
export type TransportOverflow = 'wait' | 'refuse';

/**
 * Whether a subscriber receives, as {@link TransportSubscriber.state} reports it: a snapshot, read as often as asked
 * (a health check, a metrics scrape), so `since` tells how long it has been so.
 */
export interface TransportSubscriberState {
  /** True while every listener subscribed so far can be handed messages (true before the first is subscribed). */
  receiving: boolean;
  /** When `receiving` took its value (epoch ms): the subscriber's creation until it first changed. */
  since: number;
  /** While not receiving: why, in one line (`disconnected, reconnecting: <the last connection error>`). */
  reason?: string;
}

/**
 * Receives messages for a consumer's listeners. A subscriber whose connection can drop (RabbitMQ) reconnects by
 * itself and says so in {@link state}: the consumer's health indicator reports `down` while it does not receive.
 */
export interface TransportSubscriber {
  /**
   * Declares what the listener needs on the transport (its subscription, bindings, retry and dead-letter routes)
   * and starts handing its messages to `handle` (or, for messages it hands over together, to `handleBatch`, which the
   * consumer always gives). Resolves once it receives.
   */
  subscribe(listener: TransportListener, handle: TransportHandler, handleBatch?: TransportBatchHandler): Promise<void>;
  /** See {@link TransportOverflow}. Absent: `wait`. */
  readonly overflow?: TransportOverflow;
  /**
   * Shutdown, first step: no new message is handed to a handler from now on; those handed already still settle
   * through their `handle` promise. Idempotent.
   */
  stopReceiving(): Promise<void>;
  /**
   * Shutdown, last step, once the handlers are done: settles what is left (anything unsettled is delivered again
   * later) and releases connections. Idempotent.
   */
  close(): Promise<void>;
  /**
   * Optional: whether it receives now. A subscriber that can lose its connection implements it: `receiving` false from
   * the moment a connection or channel its listeners consume on is lost until every listener is consuming again,
   * with the last error as `reason`; false for good once `stopReceiving()` was called. Without it (the in-memory
   * subscriber, which cannot be cut off) the subscriber counts as receiving. Cheap and synchronous: no I/O.
   */
  state?(): TransportSubscriberState;
}

/**
 * Where messages go and come from: the MMMQ broker (the default of `MmmqProducerModule` and `MmmqConsumerModule`),
 * the in-memory broker of tests (`InMemoryTransport`), or another broker (`RabbitMqTransport` of `@mmmq/rabbitmq`),
 * chosen with the modules' `transport` option. Producer and listener code is the same on each; `docs/scaling.md`
 * lists where their guarantees differ.
 */
export abstract class MmmqTransport {
  /** For logs and error messages: `mmmq`, `in-memory`, `rabbitmq`. */
  abstract readonly name: string;

  /** A publisher for one producer; the producer closes it. */
  abstract createPublisher(): TransportPublisher;

  /** A subscriber for one consumer; the consumer closes it. */
  abstract createSubscriber(): TransportSubscriber;

  /**
   * What this transport cannot honour of `listener`, one sentence each (e.g. a selector it cannot evaluate); empty
   * when it honours everything. The consumer refuses to start with a listener that has any, naming them.
   */
  abstract unsupported(listener: TransportListener): string[];
}

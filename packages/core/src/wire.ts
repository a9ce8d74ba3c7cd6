import type { Acknowledgement, BrokerAcknowledgement } from './acknowledgement';
import type { DeliveryMode } from './delivery-mode';
import type { FsyncMode } from './fsync-mode';
import type { MessageHeaders } from './message';

/** Path of the publish endpoint on the broker and of the delivery endpoint on every consumer. */
export const MESSAGES_PATH = '/mmmq/messages';
/** Path of the batch publish endpoint on the broker and of the batched delivery endpoint on a consumer. */
export const BATCH_MESSAGES_PATH = `${MESSAGES_PATH}/batch`;
/**
 * Path of a shared push on a consumer: windows of several subscriptions pushed to the same host, in one request
 * (docs/http-api.md, "Shared pushes"). Sent only to a consumer that answered a push with {@link SHARED_PUSH_HEADER}.
 */
export const SHARED_MESSAGES_PATH = `${MESSAGES_PATH}/shared`;
/** Set on a consumer's answers to pushes when it takes shared pushes ({@link SHARED_MESSAGES_PATH}); value `1`. */
export const SHARED_PUSH_HEADER = 'mmmq-shared-push';
/**
 * Set (value `1`) by a broker on the batched and shared pushes whose acknowledgements may carry a request's reply
 * (`reply`, docs/http-api.md § Replies in the settlement): it relays each one, so the consumer sends no reply request.
 */
export const SETTLEMENT_REPLIES_HEADER = 'mmmq-settlement-replies';
/** The broker's dispatcher API: `GET`/`POST` here, `PUT`/`DELETE` on `…/{consumerId}`. */
export const DISPATCHERS_PATH = '/mmmq/dispatchers';
/** The broker's consumer API: `…/{consumerId}/fetch`, `ack`, `nack`, `extend`, `terminate`, `recover`. */
export const CONSUMERS_PATH = '/mmmq/consumers';

/** The broker's transaction endpoint: settles a consumer's inputs and publishes its outputs in one commit. */
export const TRANSACTIONS_PATH = '/mmmq/transactions';
/** Cancels a scheduled message before its time: `{"topic", "id", "offset"?}` → `{"cancelled": {…}}`. */
export const SCHEDULED_CANCEL_PATH = '/mmmq/scheduled/cancel';

/** Tells a consumer which of its subscriptions a pushed message is for. */
export const CONSUMER_ID_HEADER = 'mmmq-consumer-id';

/**
 * Sent with every push of a dispatcher that has more than one push in flight (`maxInFlight` > 1): the pushes of
 * one session are numbered from 0 by {@link PUSH_SEQUENCE_HEADER}, and the consumer handles them in that order.
 * A subscription starts a new session after a failed push, so a consumer never waits for a push that was lost.
 */
export const PUSH_SESSION_HEADER = 'mmmq-push-session';
/** The number of a push within its {@link PUSH_SESSION_HEADER}, from 0. */
export const PUSH_SEQUENCE_HEADER = 'mmmq-push-sequence';

/** Body of `POST /mmmq/messages` on the broker. */
export interface PublishRequest<T = unknown> {
  /** The object form is what the original Java producer sends. */
  topic: string | { name: string };
  content: T;
  /** Assigned by the broker when absent. */
  id?: string;
  headers?: MessageHeaders;
  /** Time to live in ms from acceptance; not with `expiresAt` (see MessageProperties). */
  ttlMs?: number;
  /** Epoch ms after which it is not delivered any more; not with `ttlMs`. */
  expiresAt?: number;
  /** 0–9, default 4. */
  priority?: number;
  /** Not delivered before this many ms after acceptance; not with `deliverAt` (see MessageProperties). */
  delayMs?: number;
  /** ISO 8601 time before which it is not delivered; not with `delayMs`. */
  deliverAt?: string;
  /** Default: the topic's (`topics…deliveryMode` on the broker, itself `persistent` by default). */
  deliveryMode?: DeliveryMode;
}

export interface PublishBatchRequest<T = unknown> {
  messages: PublishRequest<T>[];
}

/** A persistent message, acknowledged once durable: where it was stored. */
export interface StoredMessage {
  id: string;
  topic: string;
  offset: number;
  deliveryMode: 'persistent';
  /**
   * Present when the journal record was not fsync'd before this ACK (the topic's flush policy, `interval` or
   * `never`): the message is written and visible, durable within the broker's fsync interval or at its next flush.
   * Absent: fsync'd (`always`, the default).
   */
  fsync?: Exclude<FsyncMode, 'always'>;
  /**
   * Present (true) when the broker already held a message with this producer-given id on this topic, within the
   * topic's de-duplication window: the ACK is the original's (same offset) and nothing new was stored.
   */
  duplicate?: true;
}

/**
 * A nonPersistent message, acknowledged on receipt: it has its place in the broker's commit order but is not
 * durable yet, and has no offset (an offset is only final once the message is durable).
 */
export interface AcceptedMessage {
  id: string;
  topic: string;
  offset?: undefined;
  deliveryMode: 'nonPersistent';
  /** As {@link StoredMessage.fsync}. */
  fsync?: Exclude<FsyncMode, 'always'>;
  /** As {@link StoredMessage.duplicate}: the id appeared earlier in the same batch, which stores it once. */
  duplicate?: true;
}

/**
 * What the broker acknowledged for one published message; `deliveryMode` says which of the two it is. Brokers
 * from before delivery modes send no `deliveryMode`: their ACKs are all persistent.
 */
export type PublishedMessage = StoredMessage | AcceptedMessage;

/** The ACK of a single publish: once durable when persistent, on receipt when nonPersistent. */
export type PublishResponse = BrokerAcknowledgement & PublishedMessage;

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
  /** Epoch milliseconds after which the broker does not deliver it any more; absent when it never expires. */
  expiresAt?: number;
  /** Present when not the default (4). */
  priority?: number;
  /**
   * Names this delivery (opaque): sent back to settle or extend it through the pull API. Absent from brokers before
   * the subscription model.
   */
  lease?: string;
  /**
   * True when a NACK of this delivery dead-letters the message instead of having it delivered again: its NACK
   * retries are used up (the broker's `delivery.maxNackRetries`), or this is delivery number `maxDeliveries` of its
   * dispatcher — then any other failure (an error status, a timeout, an expired lease) dead-letters it too. Never
   * true while NACK retries are left under `maxDeliveries: -1`. A NACK with `retry: false` dead-letters whatever
   * this says. Absent (read as false) from brokers before it was added.
   */
  lastAttempt?: boolean;
}

/**
 * Body of `POST /mmmq/transactions`: the leases of the input messages (of one topic, as delivered to `consumerId`)
 * are settled and `messages` published in one journal record — both durable and visible together, or neither.
 */
export interface TransactionRequest<T = unknown> {
  consumerId: string;
  /** Lease tokens of the inputs (or `{"lease"}` objects), at least one. */
  settle: Array<string | { lease: string; topic?: string; offset?: number }>;
  /** The outputs, as in a batch; may be empty. */
  messages?: PublishRequest<T>[];
}

/** Sent only once the outputs and the inputs' settlement are durable. */
export interface TransactionResponse {
  acknowledgement: Acknowledgement;
  /** Where each output was stored, in request order. */
  messages: PublishedMessage[];
  /** How many inputs were settled. */
  settled: number;
}

import type { ConsumerClaimCheckOptions } from './claim-check.options';
import {
  MAX_ACK_TIMEOUT_MS,
  MAX_FETCH_MESSAGES,
  MAX_FETCH_WAIT_MS,
  MAX_PUSH_BATCH_SIZE,
  MAX_PUSH_IN_FLIGHT,
  MIN_ACK_TIMEOUT_MS,
  type MmmqTransport,
  type StartFrom as CoreStartFrom,
  type TlsClientOptions,
} from '@mmmq/core';
import type { AckMode } from '../listener/ack-mode';
import type { DeliveryMode } from '../listener/delivery-mode';
import type { MmmqListenerOptions } from '../listener/mmmq-listener.options';

/** Messages that may wait for a free worker before deliveries are refused with 503. */
export const DEFAULT_QUEUE_SIZE = 1000;
/** Handler executions the pool starts with (see {@link WorkersOptions.min}). */
export const DEFAULT_MIN_WORKERS = 2;
/** Handler executions that may run at once across all listeners. */
export const DEFAULT_MAX_WORKERS = 5;
/** How long shutdown waits for running handlers before it answers their deliveries with 503. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
/** Largest delivery body read when the host application has no body parser. */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
/** With `registration.failFast`: tries to reach the broker's dispatcher API at bootstrap before the application fails to start. */
export const DEFAULT_REGISTRATION_ATTEMPTS = 5;
/** Wait before the second registration try; it doubles after each further failure (minus up to 20 % jitter). */
export const DEFAULT_REGISTRATION_BACKOFF_MS = 500;
/**
 * The longest wait between two registration tries in the background: a broker that comes back is found within
 * this (plus one request).
 */
export const DEFAULT_REGISTRATION_MAX_BACKOFF_MS = 10_000;
/** Default of `registration.failFast`: register in the background, the application starts without the broker. */
export const DEFAULT_REGISTRATION_FAIL_FAST = false;
/** Time limit of one request to the broker's dispatcher API. */
export const DEFAULT_REGISTRATION_TIMEOUT_MS = 5_000;
/**
 * Default of `registration.leaveOnShutdown`: a graceful shutdown takes this application's `advertisedUrl` out of its
 * dispatchers, so the broker stops pushing to an address that is going away.
 */
export const DEFAULT_REGISTRATION_LEAVE_ON_SHUTDOWN = true;

/** Messages the broker may push in one request to this application (it then calls `POST /mmmq/messages/batch`). */
export const DEFAULT_DELIVERY_BATCH_SIZE = 500;
/** The broker's limit on `batchSize`. */
export const MAX_DELIVERY_BATCH_SIZE = MAX_PUSH_BATCH_SIZE;
/** Pushes of one subscription the broker may have on their way to this application at once (`maxInFlight`). */
export const DEFAULT_DELIVERY_MAX_IN_FLIGHT = 4;
/** The broker's limit on `maxInFlight`. */
export const MAX_DELIVERY_MAX_IN_FLIGHT = MAX_PUSH_IN_FLIGHT;

/** Messages one pull listener holds at most (fetched, not yet handled and settled); also the largest fetch. */
export const DEFAULT_PULL_PREFETCH = 100;
/** The broker's limit on one fetch (`max`), and so on `pull.prefetch`. */
export const MAX_PULL_PREFETCH = MAX_FETCH_MESSAGES;
/** How long one fetch waits on the broker for a first message (long poll) before it answers with none. */
export const DEFAULT_PULL_WAIT_MS = 20_000;
/** The broker's limit on `waitMs`. */
export const MAX_PULL_WAIT_MS = MAX_FETCH_WAIT_MS;
/** The broker's limits on a lease asked for with `ackTimeoutMs` (1 s to 12 h). */
export const MIN_PULL_ACK_TIMEOUT_MS = MIN_ACK_TIMEOUT_MS;
export const MAX_PULL_ACK_TIMEOUT_MS = MAX_ACK_TIMEOUT_MS;
/** How long after its fetch a pulled message's lease is kept alive at most (5 min, the handlers' `maxHandlerMs` default). */
export const DEFAULT_PULL_MAX_LEASE_EXTENSION_MS = 5 * 60_000;

/** Settings of `delivery: 'pull'`. */
export interface PullOptions {
  /**
   * Messages one listener holds at most: fetched and not yet handled and settled. Each fetch asks for what is
   * free, once at least half is. Default {@link DEFAULT_PULL_PREFETCH}, at most {@link MAX_PULL_PREFETCH}.
   */
  prefetch?: number;
  /** Long poll: how long a fetch waits for a first message. Default {@link DEFAULT_PULL_WAIT_MS}, at most {@link MAX_PULL_WAIT_MS}. */
  waitMs?: number;
  /**
   * This instance's name among the members of a consumer id, `[A-Za-z0-9._:-]{1,128}`. Default
   * `{app}:{hostname}:{pid}` (characters outside the set become `-`, cut to 128).
   */
  member?: string;
  /**
   * Lease length asked for with every fetch: a message not settled within it is delivered again. Default: the
   * dispatcher's `ackTimeoutMs` (30 s on the broker). From {@link MIN_PULL_ACK_TIMEOUT_MS} to {@link MAX_PULL_ACK_TIMEOUT_MS}.
   */
  ackTimeoutMs?: number;
  /**
   * A fetched message's lease is extended every third of a lease while it waits for a worker or its handler runs,
   * for up to this long after the fetch, so a prefetch the handlers take a while to get through is not delivered
   * again meanwhile. 0 turns extending off. Default {@link DEFAULT_PULL_MAX_LEASE_EXTENSION_MS}, at most
   * {@link MAX_PULL_ACK_TIMEOUT_MS}.
   */
  maxLeaseExtensionMs?: number;
}

/**
 * Where a new dispatcher starts in topics that already hold messages: the oldest retained message, the tail, or the
 * first message published at or after a time (`{ time: '2026-12-07T10:00:00Z' }`).
 */
export type StartFrom = CoreStartFrom;

export interface WorkersOptions {
  /**
   * Workers the pool keeps alive. Handlers run on Node's event loop, so a worker is a slot for one handler
   * execution, not a thread: there is nothing to keep warm, and only `max` limits anything. It is still
   * validated (1 ≤ min ≤ max) so that existing configuration that sets it stays meaningful.
   * Default {@link DEFAULT_MIN_WORKERS}, or `max` when that is smaller.
   */
  min?: number;
  /**
   * Handler executions that may run at once, all listeners together. Default {@link DEFAULT_MAX_WORKERS}, or
   * `min` when that is larger.
   */
  max?: number;
}

/**
 * Settings of one listener, by listener name: any option of `@MMMQListener` but its identity (`pattern`, `name`); they
 * override what its decorator says.
 */
export type ListenerConfig = Omit<MmmqListenerOptions, 'pattern' | 'name'>;

export interface RegistrationOptions {
  /**
   * `false`: the application starts whether or not the broker answers; the dispatchers are registered in the
   * background, retried with backoff until they are (`MmmqConsumerHealthIndicator` says not ready meanwhile).
   * `true`: bootstrap waits for the registrations and fails with `DispatcherRegistrationError` after `attempts`
   * tries. Default {@link DEFAULT_REGISTRATION_FAIL_FAST} (`false`).
   */
  failFast?: boolean;
  /** With `failFast`: tries per listener before bootstrap fails. Default {@link DEFAULT_REGISTRATION_ATTEMPTS}. */
  attempts?: number;
  /**
   * Wait before the second try, doubled after each failure up to {@link DEFAULT_REGISTRATION_MAX_BACKOFF_MS}.
   * Default {@link DEFAULT_REGISTRATION_BACKOFF_MS}.
   */
  backoffMs?: number;
  /** Time limit of one request. Default {@link DEFAULT_REGISTRATION_TIMEOUT_MS}. */
  timeoutMs?: number;
  /**
   * `true`: a graceful shutdown takes this application's `advertisedUrl` out of its dispatchers. `false`: it stays a
   * member, which replicas that share one `advertisedUrl` (a Kubernetes Service, a compose service name) need, or
   * one replica's shutdown would leave the dispatcher with no push host. Default
   * {@link DEFAULT_REGISTRATION_LEAVE_ON_SHUTDOWN} (`true`).
   */
  leaveOnShutdown?: boolean;
}

/** Options of `MmmqConsumerModule.forRoot()` / `forRootAsync()`. */
export interface MmmqConsumerOptions {
  /**
   * This application's name, the prefix of every default consumer id (`billing` → `billing.order-listener`).
   * Required when `autoRegister` is on, so that two applications never share a dispatcher by accident.
   */
  app?: string;
  /**
   * Receive through another transport instead of the MMMQ broker: `new RabbitMqTransport({ url })` of
   * `@mmmq/rabbitmq`, or `new InMemoryTransport()` of `@mmmq/core/testing`. Each listener is subscribed on it at
   * bootstrap, and a listener option it cannot honour fails bootstrap. The options that only concern the MMMQ broker
   * (`broker`, `advertisedUrl`, `token`, `tls`, `autoRegister`, `delivery`, `pull`, `registration`, `signingSecrets`,
   * `signatureToleranceSeconds`, `deliveryBatchSize`, `deliveryMaxInFlight`, `maxBodyBytes`) are refused with it
   * (docs/scaling.md). Default none: the MMMQ broker.
   */
  transport?: MmmqTransport;
  /** The broker's base URL, e.g. `http://127.0.0.1:8080`; needed for self-registration. */
  broker?: string;
  /** TLS to an `https://` broker: `ca` adds certificates to trust. Default: Node's trusted CAs only. */
  tls?: TlsClientOptions;
  /** The URL at which the broker reaches this application, e.g. `http://billing:3000` (no path). */
  advertisedUrl?: string;
  /**
   * A token of the broker's `auth.tokens` with the `consume` role, sent as `Authorization: Bearer <token>` when
   * registering dispatchers (docs/security.md). Needed by a broker with tokens; one without ignores it. Default none.
   */
  token?: string;
  /**
   * Register one dispatcher per listener with the broker once the application listens (with `registration.failFast`:
   * at bootstrap). Default: on when `broker` and `advertisedUrl` are both set; `false` turns it off.
   */
  autoRegister?: boolean;
  /** Messages that may wait for a worker; beyond that deliveries get 503. Default {@link DEFAULT_QUEUE_SIZE}. */
  queueSize?: number;
  workers?: WorkersOptions;
  /** How long shutdown waits for running handlers. Default {@link DEFAULT_SHUTDOWN_TIMEOUT_MS}. */
  shutdownTimeoutMs?: number;
  /**
   * Up to this many messages per push, asked of the broker when registering (`batchSize`). A batch for one
   * listener is one queue entry, handled in order; `1` asks for one message per request. Only used with
   * self-registration. Default {@link DEFAULT_DELIVERY_BATCH_SIZE}, at most {@link MAX_DELIVERY_BATCH_SIZE}.
   */
  deliveryBatchSize?: number;
  /**
   * Pushes of one subscription the broker may send before the first of them is answered, asked of the broker
   * when registering (`maxInFlight`). They are numbered, and this application handles them in that order, so a
   * listener still sees its topic's messages in offset order. `1` waits for each answer. Only used with
   * self-registration. Default {@link DEFAULT_DELIVERY_MAX_IN_FLIGHT}, at most {@link MAX_DELIVERY_MAX_IN_FLIGHT}.
   */
  deliveryMaxInFlight?: number;
  /** Largest delivery body read when the application has no body parser. Default {@link DEFAULT_MAX_BODY_BYTES}. */
  maxBodyBytes?: number;
  /**
   * Signing secrets (`whsec_` + base64 of 24 to 64 random bytes). With any set, every push must be signed with
   * one of them (Standard Webhooks headers, checked over the exact body bytes in constant time, timestamp within
   * `signatureToleranceSeconds`), or it is answered 401 and not handled. Self-registration sends the first one
   * as the dispatcher's `signingSecret`; to rotate, put the new secret first and keep the old one after it until
   * every instance has registered again. The raw body is needed: use Nest's `rawBody: true` or
   * `bodyParser: false`. Default none: pushes are not verified.
   */
  signingSecrets?: string[];
  /**
   * How far a signed push's `webhook-timestamp` may be from this machine's clock, either way, in seconds.
   * Default 300 (core's `DEFAULT_SIGNATURE_TOLERANCE_SECONDS`).
   */
  signatureToleranceSeconds?: number;
  registration?: RegistrationOptions;
  /** Per-listener settings by listener name, so they can come from configuration. Default none. */
  listeners?: Record<string, ListenerConfig>;
  /**
   * When a message counts as settled (docs/consumer.md, "Acknowledge modes"): `auto` (after the handler
   * succeeds), `manual` (the handler calls `context.ack()` / `nack()` / `terminate()`), `dupsOk` (as auto, with
   * lazily batched acks when pulling), `none` (on receipt, before the handler). Per listener: `listeners[name].ackMode`
   * or `@MMMQListener({ ackMode })`. Default {@link DEFAULT_ACK_MODE} (`auto`).
   */
  ackMode?: AckMode;
  /**
   * `push` (the broker POSTs to `advertisedUrl`) or `pull` (this application fetches from `broker`, no inbound
   * endpoint needed). Default {@link DEFAULT_DELIVERY_MODE} (`push`).
   */
  delivery?: DeliveryMode;
  /** Settings of `delivery: 'pull'`. */
  pull?: PullOptions;
  /**
   * Resolves claim checks (messages whose large content a producer stored elsewhere, see docs/exactly-once.md#claim-check)
   * before the handler runs: the handler gets the content as if it had been sent inline. An expired, missing, resized
   * or altered content is dead-lettered with the reason, as is a claim check arriving without this option.
   * Default none.
   */
  claimCheck?: ConsumerClaimCheckOptions;
}

import type { EventClasses, MmmqTransport, TlsClientOptions } from '@mmmq/core';
import type { ProducerClaimCheckOptions } from './claim-check/claim-check.options';

/** Retries after the first attempt, so a message is sent at most `1 + maxRetryCount` times. */
export const DEFAULT_MAX_RETRY_COUNT = 3;
/** Wait before the first retry; each further retry doubles it, up to {@link DEFAULT_MAX_RETRY_DELAY_MS}. */
export const DEFAULT_RETRY_DELAY_MS = 100;
/** Longest wait between two attempts, including one the broker asked for with `Retry-After`. */
export const DEFAULT_MAX_RETRY_DELAY_MS = 5_000;
/** An attempt that gets no complete answer within this time counts as failed (and is retried). */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Options of `MmmqProducerModule.forRoot()` / `forRootAsync()`. */
export interface MmmqProducerOptions {
  /**
   * Where to publish. Either the broker's HTTP base URL, `http://` or `https://`, e.g. `http://localhost:8080`
   * (a path prefix is kept, for a broker behind a gateway), or its publish stream, `mmmq://host:port` (e.g.
   * `mmmq://localhost:8081`; one TCP connection that keeps several batches of a topic in flight, in order; see
   * docs/stream-protocol.md). Required, except with `transport`, or when `MmmqTestingModule` provides an
   * `InMemoryBroker`. Over TLS: `https://…` or `mmmqs://host:port`.
   */
  broker?: string;
  /**
   * Publish through another transport instead of the MMMQ broker: `new RabbitMqTransport({ url })` of
   * `@mmmq/rabbitmq`, or `new InMemoryTransport()` of `@mmmq/core/testing`. Retries, batching, metrics and claim
   * checks work the same on top of it; `broker`, `token` and `tls` belong to the MMMQ broker and are refused with it
   * (docs/scaling.md). Default none: the MMMQ broker at `broker`.
   */
  transport?: MmmqTransport;
  /**
   * TLS to an `https://` or `mmmqs://` broker. `ca`: PEM certificates to trust besides Node's default ones (a
   * private CA, or a self-signed broker certificate). Default: Node's trusted CAs only.
   */
  tls?: TlsClientOptions;
  /**
   * How many times a failed publish is retried (after the first attempt) when retrying can help: a NACK, a
   * network error, a timeout, 408, 429 or 5xx. `0` disables retries. Default {@link DEFAULT_MAX_RETRY_COUNT}.
   */
  maxRetryCount?: number;
  /**
   * Wait before the first retry, in ms; it doubles on each further retry, minus up to 20 % jitter.
   * Default {@link DEFAULT_RETRY_DELAY_MS}.
   */
  retryDelayMs?: number;
  /**
   * Cap on the wait between attempts, in ms, which also bounds how long a broker's `Retry-After` is honoured.
   * Default {@link DEFAULT_MAX_RETRY_DELAY_MS}.
   */
  maxRetryDelayMs?: number;
  /**
   * Per-attempt deadline, in ms, from sending the request to reading the whole answer (with `transport`: until the
   * transport confirms the publish).
   * Default {@link DEFAULT_TIMEOUT_MS}.
   */
  timeoutMs?: number;
  /**
   * Concurrent `produce()` calls for one topic are sent together: calls made in the same turn of the event
   * loop, and those made while `maxInFlight` requests of the topic are in flight, go as one atomic batch (up to
   * `maxMessages` / `maxBytes` of content). Messages are stored in call order. A lone message leaves at the end of
   * the current turn, with no linger timer. Defaults 500 messages (`DEFAULT_BATCH_MAX_MESSAGES`),
   * 512 KiB (`DEFAULT_BATCH_MAX_BYTES`), and `maxInFlight` 1 over HTTP (the only value HTTP allows: two requests may
   * be handled in either order) or 4 (`DEFAULT_STREAM_MAX_IN_FLIGHT`) over the publish stream. `false` sends
   * every message in a request of its own.
   */
  batching?: false | { maxMessages?: number; maxBytes?: number; maxInFlight?: number };
  /**
   * A token of the broker's `auth.tokens` with the `publish` role, sent as `Authorization: Bearer <token>` over HTTP
   * and as the connection's AUTH request over the publish stream (docs/security.md). Needed by a broker with tokens;
   * one without ignores it. Default none.
   */
  token?: string;
  /**
   * Claim check: a content whose JSON text is larger than `thresholdBytes` (default 1 MiB, the broker's default body
   * limit) is written to `store` and the message carries a reference to it (SHA-256 digest, size, expiry after
   * `ttlMs`, default 7 days), which consumers with the same store resolve before their handler runs. Applies to
   * `produce()`, `produceBatch()` and transactions. Default none: such a message is refused by the broker (413).
   * See docs/exactly-once.md#claim-check.
   */
  claimCheck?: ProducerClaimCheckOptions;
  /**
   * The topics this application sends to and their content classes (`{ 'order.placed': PlaceOrder }`), described as
   * `send` operations in its AsyncAPI document (docs/asyncapi.md), a class-validator DTO with its JSON Schema.
   * `String`, `Number`, `Boolean`, `Array` stand for JSON primitives and arrays, `Object` for any JSON. Type the
   * producer from the same object: `Producer<EventMapOf<typeof orderEvents>>`. Nothing is checked when sending.
   * Default none.
   */
  events?: EventClasses;
}

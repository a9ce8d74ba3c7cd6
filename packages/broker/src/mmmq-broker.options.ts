import type { ConsoleOptions } from './console/console.options';
import type { DeliveryOptions } from './dispatch/delivery.options';
import type { AuthOptions } from './security/auth.options';
import type { TopicsOptions } from './topics/topic-policy.options';
import type { HttpOptions, LimitsOptions, PersistenceOptions, StreamOptions, TlsOptions } from './config/broker-options';
import type { MemoryOptions } from './config/memory-options';

export * from './config/broker-options';
export * from './config/memory-options';

export interface MmmqBrokerOptions {
  persistence?: PersistenceOptions;
  /** Limits of the publish endpoints; the publish stream applies the same ones to each request. */
  http?: HttpOptions;
  /**
   * The publish stream: producers keep one TCP connection and send many publishes on it without waiting, and the
   * broker stores them in the order they were sent. Default: off (publishing is HTTP only).
   */
  stream?: StreamOptions;
  /**
   * Push consumers defined in code, in the `dispatchers.json` shape (`host` as URL or object). At boot they are
   * added to the file, replacing an entry with the same `consumerId`. Default none.
   */
  dispatchers?: unknown[];
  /** Push delivery: retries, timeouts, backoff, shutdown grace. */
  delivery?: DeliveryOptions;
  /**
   * TLS for the publish stream (`mmmqs://`), from a key and a certificate file read at start-up and again on
   * `TlsCertificates.reload()`. HTTP is the host application's server: give it the same pair (the standalone
   * broker does). Default: off.
   */
  tls?: TlsOptions;
  /** Bearer tokens and their roles (docs/security.md). Default none: authentication off, loopback clients only. */
  auth?: AuthOptions;
  /** Retention, limits, expiry and delivery mode, broker-wide and per topic pattern (docs/destinations.md). */
  topics?: TopicsOptions;
  /** The admin web console at `/mmmq/console` (docs/operations.md#console). Default: on. */
  console?: ConsoleOptions;
  /** Caps on topics, dispatchers and subscriptions, and the budget of open files (docs/operations.md#descriptors-and-caps). */
  limits?: LimitsOptions;
  /** Bytes of messages held in memory: windows and recent entries, per subscription or topic and broker-wide (docs/delivery.md#memory). */
  memory?: MemoryOptions;
}

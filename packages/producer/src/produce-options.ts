import type { DeliveryMode, MessageHeaders } from '@mmmq/core';

/** Optional parts of a message given beside its topic and content. */
export interface ProduceOptions {
  /**
   * The message id: 1–256 printable ASCII characters, no spaces. A random UUID when absent. Give your own (an
   * order number, an outbox row id) to let consumers drop duplicates across separate `produce()` calls too.
   */
  id?: string;
  /** Typed message properties (name → string, finite number or boolean), delivered with the message. */
  headers?: MessageHeaders;
  /**
   * Time to live in ms, counted from the moment the broker accepts the message (a retried publish: the attempt it
   * accepts). Not delivered after that: dead-lettered with reason `EXPIRED` or dropped (docs/destinations.md#expiry).
   * Not with `expiresAt`. Default: the topic's `expiry.ttlMs` (none unless configured).
   */
  ttlMs?: number;
  /** Epoch ms (wall clock, compared with the broker's clock) after which the message is not delivered. Not with `ttlMs`. */
  expiresAt?: number;
  /** 0–9, higher delivered first (docs/destinations.md#priority). Default 4. */
  priority?: number;
  /**
   * Not delivered before this many ms after the broker accepts the message: it is stored (and `produce()` resolves)
   * at once, and reaches consumers at its time (docs/delivery.md#scheduled-messages). At most the broker's
   * `limits.maxDelayMs` (default 90 days). Not with `deliverAt`. Default 0: at once.
   */
  delayMs?: number;
  /** Not delivered before this time (broker's clock): a `Date`, or an ISO 8601 string with a zone. Not with `delayMs`. */
  deliverAt?: Date | string;
  /**
   * `persistent`: `produce()` resolves once the broker made the message durable, with its offset.
   * `nonPersistent`: it resolves once the broker received it (no offset yet); the message may be lost if the broker
   * crashes before it is durable, never on a clean restart. Default: the topic's mode on the broker (`topics`
   * option), itself `persistent` by default. In one batch or transaction, a persistent message makes the whole
   * batch persistent. See docs/destinations.md#delivery-modes.
   */
  deliveryMode?: DeliveryMode;
}

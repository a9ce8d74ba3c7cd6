import type { ProduceOptions } from '../produce-options';

/** How long `request()` waits for its reply by default. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** The options of `producer.request()`: those of `produce()`, and how long to wait for the reply. */
export interface RequestOptions extends ProduceOptions {
  /**
   * How long to wait for the reply, from the call (the publish included), in ms: a positive integer up to
   * 2 147 483 647. Default {@link DEFAULT_REQUEST_TIMEOUT_MS} (30 s). On expiry the call rejects with a
   * `RequestTimeoutError`; a reply that comes later is dropped and counted.
   */
  timeoutMs?: number;
}

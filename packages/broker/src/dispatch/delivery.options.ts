import { BackoffOptions, DEFAULT_BACKOFF } from '@mmmq/core';
import { DEFAULT_PUSH_MAX_SOCKETS, DEFAULT_PUSH_MAX_SOCKETS_PER_HOST } from './push-agents';
import { DEFAULT_DELIVERY_TIMEOUT_MS } from './push-sender';
import { DEFAULT_PUSH_ALLOWED_NETWORKS } from './push-target-policy';

/** A NACKed message is sent this many more times, back to back, before it is dead-lettered. */
export const DEFAULT_MAX_NACK_RETRIES = 3;
/** On shutdown, and when a push host leaves, its in-flight pushes get this long to finish before they are abandoned (and redelivered later). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5000;

export interface DeliveryOptions {
  /** Default {@link DEFAULT_MAX_NACK_RETRIES}. */
  maxNackRetries?: number;
  /** Per-request timeout of a push, ms. Default {@link DEFAULT_DELIVERY_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Backoff after connection errors, timeouts and HTTP ≥ 400; defaults 1 s × 2 up to 60 s, 20 % jitter. */
  backoff?: Partial<BackoffOptions>;
  /** Default {@link DEFAULT_SHUTDOWN_GRACE_MS}. */
  shutdownGraceMs?: number;
  /**
   * Private and loopback networks pushes may go to: `"loopback"` (127.0.0.0/8, ::1), `"private"` (10/8,
   * 172.16/12, 192.168/16, 100.64/10, fc00::/7, fec0::/10), IP addresses and CIDRs such as `"10.1.0.0/16"`. Public
   * addresses are always allowed; link-local, cloud metadata, unspecified, multicast and broadcast addresses
   * never are (docs/security.md). The list replaces the default, so keep `"loopback"` in it if needed.
   * Default {@link DEFAULT_PUSH_ALLOWED_NETWORKS} (`["loopback"]`).
   */
  allowedNetworks?: readonly string[];
  /**
   * Connections open at once to one push host (address and port); further pushes to it wait for one. A positive
   * integer, at most `maxSockets`. Default {@link DEFAULT_PUSH_MAX_SOCKETS_PER_HOST}.
   */
  maxSocketsPerHost?: number;
  /**
   * Connections open at once to all push hosts, per protocol (HTTP, HTTPS); further pushes wait for one. A positive
   * integer. Default {@link DEFAULT_PUSH_MAX_SOCKETS}.
   */
  maxSockets?: number;
}

export interface ResolvedDeliveryOptions {
  maxNackRetries: number;
  timeoutMs: number;
  backoff: BackoffOptions;
  shutdownGraceMs: number;
  allowedNetworks: readonly string[];
  maxSocketsPerHost: number;
  maxSockets: number;
}

export const MMMQ_DELIVERY_OPTIONS = Symbol('MMMQ_DELIVERY_OPTIONS');

export const DEFAULT_DELIVERY_OPTIONS: ResolvedDeliveryOptions = {
  maxNackRetries: DEFAULT_MAX_NACK_RETRIES,
  timeoutMs: DEFAULT_DELIVERY_TIMEOUT_MS,
  backoff: DEFAULT_BACKOFF,
  shutdownGraceMs: DEFAULT_SHUTDOWN_GRACE_MS,
  allowedNetworks: DEFAULT_PUSH_ALLOWED_NETWORKS,
  maxSocketsPerHost: DEFAULT_PUSH_MAX_SOCKETS_PER_HOST,
  maxSockets: DEFAULT_PUSH_MAX_SOCKETS,
};

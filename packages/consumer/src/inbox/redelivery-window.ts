import { DEFAULT_BACKOFF_MAX_MS } from '@mmmq/core';

/**
 * The broker's defaults (docs/delivery.md) for what bounds redelivery. The consumer cannot read the broker's
 * configuration, so the inbox retention check assumes these unless the consumer's own options say more.
 */
export const BROKER_DEFAULT_MAX_DELIVERIES = 16;
/** The broker's push timeout and pull lease (`delivery.timeoutMs`, dispatcher `ackTimeoutMs`): 30 s each. */
export const BROKER_DEFAULT_ATTEMPT_TIMEOUT_MS = 30_000;

export interface RedeliveryBounds {
  /** Deliveries before the broker dead-letters a message. */
  maxDeliveries: number;
  /** The longest one delivery may stay unanswered before it counts as failed (push timeout or pull lease). */
  attemptTimeoutMs: number;
  /** The longest wait between two deliveries (the broker's backoff cap). */
  backoffMaxMs: number;
}

/**
 * How long after a message was first handled the broker may still deliver it again: every delivery may run to its
 * timeout and be followed by the longest backoff. With the defaults 16 × (30 s + 60 s) = 24 min. A broker outage
 * lengthens it by its duration (undelivered messages wait), which is why the default inbox retention is days.
 */
export function redeliveryWindowMs({ maxDeliveries, attemptTimeoutMs, backoffMaxMs }: RedeliveryBounds): number {
  return maxDeliveries * (attemptTimeoutMs + backoffMaxMs);
}

/** The bounds the consumer knows: the broker's defaults, with its own pull lease when it asks for a longer one. */
export function knownRedeliveryBounds(pullAckTimeoutMs: number | undefined): RedeliveryBounds {
  return {
    maxDeliveries: BROKER_DEFAULT_MAX_DELIVERIES,
    attemptTimeoutMs: Math.max(BROKER_DEFAULT_ATTEMPT_TIMEOUT_MS, pullAckTimeoutMs ?? 0),
    backoffMaxMs: DEFAULT_BACKOFF_MAX_MS,
  };
}

/**
 * The warning to log when inbox rows may be deleted before the broker stops redelivering, or undefined when the
 * retention is longer than the window (or unlimited).
 */
export function inboxRetentionWarning(retentionMs: number | undefined, bounds: RedeliveryBounds): string | undefined {
  if (retentionMs === undefined) return undefined;
  const windowMs = redeliveryWindowMs(bounds);
  if (retentionMs > windowMs) return undefined;
  return (
    `The inbox keeps processed messages for ${retentionMs} ms, not longer than the broker's redelivery window of ` +
    `${windowMs} ms (maxDeliveries ${bounds.maxDeliveries} × (attempt timeout ${bounds.attemptTimeoutMs} ms + ` +
    `backoff ${bounds.backoffMaxMs} ms)): a message redelivered after its inbox row is deleted is processed again; ` +
    `raise the inbox retention`
  );
}

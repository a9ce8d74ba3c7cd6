/** Why a subscription's pushes to a host stalled. */
export type StallReason = 'failing' | 'unauthorized';

/** Payload of `mmmq.subscription.stalled`. */
export interface SubscriptionStalledEvent {
  consumerId: string;
  topic: string;
  /** The push host's URL. */
  host: string;
  /**
   * `failing`: the push failed (refused, timed out, 5xx…) and the broker backs off before retrying; `unauthorized`:
   * the host answered 401 (it refuses the pushes' signature) and is retried at the longest backoff.
   */
  reason: StallReason;
  /** Why the push failed. */
  error: string;
}

/** Payload of `mmmq.subscription.resumed`. */
export interface SubscriptionResumedEvent {
  consumerId: string;
  topic: string;
  host: string;
  /** From the failure that stalled it to the push that was answered. */
  stalledForMs: number;
  /** Failed pushes in between. */
  failures: number;
}

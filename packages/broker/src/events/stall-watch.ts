import type { BrokerEvents } from './broker-events';
import { MmmqBrokerEvent } from './mmmq-broker-event';

/** Which subscription and host a {@link StallWatch} watches. */
export interface StallWatchTarget {
  consumerId: string;
  topic: string;
  host: string;
}

/**
 * Tells a push member's stalls apart from its failures: `mmmq.subscription.stalled` once when pushes to a host that
 * was delivering start failing, `mmmq.subscription.resumed` once when the host answers again — not once per retry.
 */
export class StallWatch {
  /** `Date.now()` of the failure that stalled the host; undefined while it delivers. */
  private since?: number;
  private failures = 0;

  constructor(
    private readonly events: BrokerEvents,
    private readonly target: StallWatchTarget,
  ) {}

  /** A push failed and the member backs off (`unauthorized`: the host answered 401). */
  failed(error: Error, unauthorized: boolean): void {
    this.failures++;
    if (this.since !== undefined) return;
    this.since = Date.now();
    this.events.emit(MmmqBrokerEvent.SUBSCRIPTION_STALLED, () => ({
      ...this.target,
      reason: unauthorized ? 'unauthorized' : 'failing',
      error: error.message,
    }));
  }

  /** The host answered a push. */
  answered(): void {
    const since = this.since;
    if (since === undefined) return;
    const failures = this.failures;
    this.since = undefined;
    this.failures = 0;
    this.events.emit(MmmqBrokerEvent.SUBSCRIPTION_RESUMED, () => ({ ...this.target, stalledForMs: Date.now() - since, failures }));
  }
}

import type { TransportSubscriber } from '@mmmq/core';
import { Injectable } from '@nestjs/common';

/** What the health indicator reports of the transport the consumer receives through. */
export interface TransportHealth {
  /** The transport's name: `rabbitmq`, `in-memory`. */
  name: string;
  /** False while its subscriber cannot receive (its connection dropped and it is reconnecting), and after shutdown began. */
  receiving: boolean;
  /** When `receiving` took its value, ISO 8601. */
  since: string;
  /** While not receiving: why, with the last error. */
  reason?: string;
}

/**
 * Which transport subscriber the consumer receives through, read by the health indicator. A subscriber without
 * `state()` (the in-memory one) counts as receiving since it was watched.
 */
@Injectable()
export class TransportStatus {
  private watched: { name: string; subscriber: TransportSubscriber; since: number } | undefined;

  watch(name: string, subscriber: TransportSubscriber): void {
    this.watched = { name, subscriber, since: Date.now() };
  }

  /** Undefined when the consumer receives from the MMMQ broker (no `transport`). */
  snapshot(): TransportHealth | undefined {
    if (this.watched === undefined) return undefined;
    const { name, subscriber, since } = this.watched;
    const state = subscriber.state?.() ?? { receiving: true, since };
    const health: TransportHealth = { name, receiving: state.receiving, since: new Date(state.since).toISOString() };
    if (!state.receiving) health.reason = state.reason ?? 'no reason given';
    return health;
  }
}

import type { TransportSubscriber } from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import type { TransportHealth } from '../handling/transport-health';

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

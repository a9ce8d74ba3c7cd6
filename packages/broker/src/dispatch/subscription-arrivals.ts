import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { BrokerBus } from '../events/broker-bus';
import { Notifier } from './ledger/notifier';
import { SubscriptionAttachedEvent } from './subscription-attached.event';

/**
 * Wakes whoever waits for a consumer's subscriptions to start: a fetch or an in-process member of a consumer that
 * has no topic yet goes on once the first one attaches ({@link SubscriptionAttachedEvent}).
 */
@Injectable()
export class SubscriptionArrivals {
  private readonly attached = new Notifier();

  constructor(bus: BrokerBus) {
    bus.listen(this);
  }

  @OnEvent(SubscriptionAttachedEvent.NAME)
  subscriptionAttached(): void {
    this.attached.notify();
  }

  /** Calls `listener` whenever a subscription starts, until unlistened. */
  listen(listener: () => void): () => void {
    return this.attached.listen(listener);
  }

  /** Resolves when a subscription starts, after `ms`, or when `signal` aborts. */
  wait(ms: number, signal: AbortSignal): Promise<void> {
    return this.attached.wait(ms, signal);
  }
}

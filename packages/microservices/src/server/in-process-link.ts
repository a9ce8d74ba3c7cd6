import type { InProcessBrokerHooks, InProcessBrokerTransport } from '@mmmq/core';

/**
 * MmmqServer's side of its application's broker (`MmmqBrokerModule`), which finds the strategy among the
 * application's RPC targets and tells it, through these hooks, that it exists, that it can be subscribed to (at the
 * application's bootstrap, which may come after the microservice's `listen()`: `startAllMicroservices()` before
 * `app.listen()`), and that the application stops (before the broker does).
 */
export class InProcessLink implements InProcessBrokerHooks {
  private attached: InProcessBrokerTransport | undefined;
  private brokerStarted = false;
  private stopped = false;
  private pending: (() => Promise<void>) | undefined;

  /** `drain` runs when the application stops, before its broker. */
  constructor(private readonly drain: () => Promise<void>) {}

  /** This application's broker; undefined when it imports no `MmmqBrokerModule`. */
  get broker(): InProcessBrokerTransport | undefined {
    return this.attached;
  }

  attach(broker: InProcessBrokerTransport): void {
    this.attached ??= broker;
  }

  /** Runs the subscription waiting for the broker, if any; its failure fails the application's bootstrap. */
  async started(): Promise<void> {
    this.brokerStarted = true;
    const subscribe = this.pending;
    this.pending = undefined;
    await subscribe?.();
  }

  stopping(): Promise<void> {
    this.stopped = true;
    this.pending = undefined;
    return this.drain();
  }

  /**
   * Runs `subscribe` now when the broker has started, or keeps it for {@link started}.
   * @returns true when it ran now
   */
  async whenStarted(subscribe: () => Promise<void>): Promise<boolean> {
    if (this.stopped) return true;
    if (!this.brokerStarted) {
      this.pending = subscribe;
      return false;
    }
    await subscribe();
    return true;
  }
}

import { sleep, type ConsumerAcknowledgement, type TransportDelivery, type TransportHandler, type TransportListener } from '@mmmq/core';
import type { Logger } from '@nestjs/common';
import { applyConsumerReply } from '../dispatch/consumer-reply';
import type { DispatcherRegistry } from '../dispatch/dispatcher-registry';
import { PUSH_BATCH_MAX_BYTES } from '../dispatch/ledger/batch-bytes';
import type { Slot } from '../dispatch/ledger/slot';
import type { Subscription } from '../dispatch/subscription';
import type { SubscriptionContainer } from '../dispatch/subscription-container';
import type { SubscriptionArrivals } from '../dispatch/subscription-arrivals';
import { inProcessDelivery } from './in-process-delivery';
import { InProcessLeaseLostError } from './in-process.errors';
import { MaxMembersReachedError } from '../dispatch/dispatcher.errors';

/**
 * Messages of one in-process listener handed to the consumer and not settled yet, at most: its prefetch. The
 * consumer's worker pool waits for room rather than refusing, so this bounds what waits in memory.
 */
export const IN_PROCESS_PREFETCH = 256;
/** The longest an idle member waits for a change before looking again (and being seen by an exclusive roster). */
const MAX_IDLE_WAIT_MS = 5_000;

/** A message handed to the listener: where it is leased, and as which delivery. */
export interface HeldDelivery {
  subscription: Subscription;
  slot: Slot;
  delivery: number;
}

export interface InProcessMemberDeps {
  subscriptions: SubscriptionContainer;
  arrivals: SubscriptionArrivals;
  registry: DispatcherRegistry;
  handle: TransportHandler;
  logger: Logger;
}

/**
 * One in-process listener as a member of its consumer's subscriptions, fed from the same ledger as push and pull
 * members: leases up to its prefetch (rotating among the consumer's topics so none starves), hands each message to
 * the consumer's handler, and settles it with the handler's acknowledgement — or at once with ack mode `none`,
 * handing over only once that is durable, as a fetch with `autoAck` does. Messages are leased only once their
 * journal record is durable (the ledger reads committed records). A handler that cannot take a message (shutdown)
 * gives it back uncounted. `stop()` ends leasing; `drain()` waits for the messages handed over and gives back what
 * is still leased to this member (counted, as a pull client's `recover`).
 */
export class InProcessMember {
  private readonly stopped = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly held = new WeakMap<TransportDelivery, HeldDelivery>();
  private running: Promise<void> | undefined;
  private rotation = 0;
  /** Wakes the loop waiting for room (half the prefetch free): one waiter, not a race over every message in flight. */
  private roomFreed?: () => void;
  /** Refused by the consumer's `maxMembers` since the last lease. */
  private refused = false;

  constructor(
    private readonly listener: TransportListener,
    readonly id: string,
    private readonly deps: InProcessMemberDeps,
  ) {}

  start(): void {
    if (this.running) return;
    this.deps.subscriptions.loopDemand.memberJoined(this.listener.consumerId);
    this.running = this.run();
  }

  /** Stops leasing; resolves once the loop has ended (and this member left its consumer's roster: a backup takes over). */
  async stop(): Promise<void> {
    if (!this.stopped.signal.aborted && this.running) this.deps.subscriptions.loopDemand.memberLeft(this.listener.consumerId);
    this.stopped.abort();
    await this.running;
    for (const subscription of this.deps.subscriptions.subscriptionsOf(this.listener.consumerId)) subscription.leave(this.id);
  }

  /** Waits for every message handed over to settle, then gives back what this member still holds. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    for (const subscription of this.deps.subscriptions.subscriptionsOf(this.listener.consumerId)) {
      for (const slot of subscription.leasesOf(this.id))
        void subscription.release(slot, { outcome: 'RECOVER', counted: true }, slot.deliveries);
    }
  }

  /** Where `delivery` is leased; undefined for a message of another member, or settled on hand-over. */
  heldAs(delivery: TransportDelivery): HeldDelivery | undefined {
    return this.held.get(delivery);
  }

  /** Moves the lease's deadline to now + the dispatcher's `ackTimeoutMs`. */
  extend(delivery: TransportDelivery): void {
    const held = this.held.get(delivery);
    if (held === undefined || !held.subscription.extend(held.slot, this.leaseMs())) {
      throw new InProcessLeaseLostError(`the lease of ${delivery.topic}@${delivery.offset} is no longer held; it is delivered again`);
    }
  }

  /** Settles `delivery` now (ack mode `manual`), resolving once that is durable; its handler's reply then changes nothing. */
  async settleNow(delivery: TransportDelivery, reply: ConsumerAcknowledgement): Promise<void> {
    const held = this.held.get(delivery);
    if (held === undefined) throw new InProcessLeaseLostError(`${delivery.topic}@${delivery.offset} is not held by this listener`);
    this.held.delete(delivery);
    // A dead letter (terminate, the last NACK) is durable with the move past its message; the rest with the state.
    await applyConsumerReply(held.subscription, held.slot, held.delivery, reply);
    await held.subscription.durable();
  }

  private async run(): Promise<void> {
    const { signal } = this.stopped;
    while (!signal.aborted) {
      try {
        if (this.inFlight.size > IN_PROCESS_PREFETCH / 2) {
          await this.untilStoppedOr([new Promise<void>((resolve) => (this.roomFreed = resolve))]);
          continue;
        }
        const leased = await this.leaseOrWait(IN_PROCESS_PREFETCH - this.inFlight.size);
        if (leased.length > 0) await this.handOver(leased);
        this.refused = false;
      } catch (error) {
        // Refused by maxMembers: said once; it joins when a member leaves.
        if (!(error instanceof MaxMembersReachedError)) {
          this.deps.logger.error(`In-process delivery to ${this.listener.consumerId} failed: ${(error as Error).message}`);
        } else if (!this.refused) {
          this.refused = true;
          this.deps.logger.error(`In-process listener of ${this.listener.consumerId} not admitted: ${error.message}`);
        }
        await sleep(MAX_IDLE_WAIT_MS, signal);
      }
    }
  }

  /**
   * Leases what is available; when nothing is, waits for a change (listening before looking again, so none is
   * missed). One message at a time makes this a wait per message: listeners and one timer, no abort signals.
   */
  private async leaseOrWait(room: number): Promise<Array<{ subscription: Subscription; slot: Slot }>> {
    const found = await this.lease(room);
    if (found.length > 0 || this.stopped.signal.aborted) return found;
    let wake!: () => void;
    const changed = new Promise<void>((resolve) => (wake = resolve));
    const subscriptions = this.deps.subscriptions.subscriptionsOf(this.listener.consumerId);
    const unlisten = [this.deps.arrivals.listen(wake), ...subscriptions.map((subscription) => subscription.onChange(wake))];
    const timer = setTimeout(wake, Math.min(MAX_IDLE_WAIT_MS, this.leaseMs() / 2));
    try {
      const leased = await this.lease(room);
      if (leased.length === 0) await this.untilStoppedOr([changed]);
      return leased;
    } finally {
      clearTimeout(timer);
      for (const stop of unlisten) stop();
    }
  }

  /**
   * Resolves once one of `promises` settles or the member stops. Not a race with a promise of the stop: that one
   * lives as long as the member, and every race would leave a reaction on it (one per message handed over, held
   * until the stop: 83,000 promises after 50,000 messages at 5,000 msg/s).
   */
  private async untilStoppedOr(promises: Promise<unknown>[]): Promise<void> {
    const { signal } = this.stopped;
    if (signal.aborted) return;
    let wake!: () => void;
    const stopped = new Promise<void>((resolve) => (wake = resolve));
    signal.addEventListener('abort', wake, { once: true });
    try {
      await Promise.race([...promises, stopped]);
    } finally {
      signal.removeEventListener('abort', wake);
    }
  }

  private async lease(room: number): Promise<Array<{ subscription: Subscription; slot: Slot }>> {
    const subscriptions = this.deps.subscriptions.subscriptionsOf(this.listener.consumerId);
    const leased: Array<{ subscription: Subscription; slot: Slot }> = [];
    if (subscriptions.length === 0) return leased;
    const leaseMs = this.leaseMs();
    const start = this.rotation++ % subscriptions.length;
    for (let i = 0; i < subscriptions.length && leased.length < room; i++) {
      const subscription = subscriptions[(start + i) % subscriptions.length];
      for (const slot of await subscription.acquire(this.id, room - leased.length, PUSH_BATCH_MAX_BYTES, leaseMs)) {
        leased.push({ subscription, slot });
      }
    }
    return leased;
  }

  private async handOver(leased: Array<{ subscription: Subscription; slot: Slot }>): Promise<void> {
    if (this.listener.ackMode === 'none') {
      // Settled on hand-over, which waits until that is durable: a crash cannot deliver them again.
      for (const { subscription, slot } of leased) subscription.ack(slot);
      await Promise.all([...new Set(leased.map(({ subscription }) => subscription))].map((subscription) => subscription.durable()));
    }
    for (const { subscription, slot } of leased) {
      const handled: Promise<void> = this.deliver(subscription, slot).then(
        () => this.settled(handled),
        (error: unknown) => {
          this.settled(handled);
          this.deps.logger.error(`In-process delivery to ${this.listener.consumerId} failed: ${(error as Error).message}`);
        },
      );
      this.inFlight.add(handled);
    }
  }

  private settled(handled: Promise<void>): void {
    this.inFlight.delete(handled);
    if (this.roomFreed === undefined || this.inFlight.size > IN_PROCESS_PREFETCH / 2) return;
    const wake = this.roomFreed;
    this.roomFreed = undefined;
    wake();
  }

  private async deliver(subscription: Subscription, slot: Slot): Promise<void> {
    const delivery = slot.deliveries;
    let message: TransportDelivery;
    try {
      message = inProcessDelivery(subscription, slot);
    } catch (error) {
      await subscription.terminate(slot, 'REJECTED', `the stored content is not JSON: ${(error as Error).message}`);
      return;
    }
    if (this.listener.ackMode !== 'none') this.held.set(message, { subscription, slot, delivery });
    let reply: ConsumerAcknowledgement;
    this.deps.subscriptions.loopDemand.handlerStarted();
    try {
      reply = await this.deps.handle(message);
    } catch {
      // The consumer did not take it (it is shutting down): no handler saw it, so it is not an attempt.
      void subscription.release(slot, { outcome: 'not taken: the consumer is stopping', counted: false }, delivery);
      return;
    } finally {
      this.deps.subscriptions.loopDemand.handlerEnded();
    }
    // Settled already by the handler (manual), or on hand-over (none): the reply changes nothing.
    if (this.listener.ackMode === 'none' || !this.held.delete(message)) return;
    await applyConsumerReply(subscription, slot, delivery, reply);
  }

  /** The dispatcher's lease length; a dispatcher removed meanwhile leases nothing more anyway. */
  private leaseMs(): number {
    return this.deps.registry.find(this.listener.consumerId)?.ackTimeoutMs ?? MAX_IDLE_WAIT_MS * 2;
  }
}

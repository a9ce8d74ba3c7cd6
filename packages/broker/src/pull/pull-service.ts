import { anySignal } from '@mmmq/core';
import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { encodeDeliveryBatch } from '../dispatch/delivery-body';
import { DispatcherRegistry } from '../dispatch/dispatcher-registry';
import { LeaseRef, parseLeaseToken } from '../dispatch/ledger/lease-token';
import { Subscription } from '../dispatch/subscription';
import { SlotState } from '../dispatch/ledger/slot';
import { SubscriptionContainer } from '../dispatch/subscription-container';
import { SubscriptionArrivals } from '../dispatch/subscription-arrivals';
import type { Leased as LeasedIn } from '../dispatch/leased-ids';
import { MemberRequiredError, TooManyFetchesError } from './pull.errors';
import { FetchRequest, SettleItem, SettleRequest, UpTo } from './pull-requests';
import { SubscriptionNotFoundError } from '../dispatch/dispatcher.errors';
import { hasRoster } from '../dispatch/dispatcher-definition';

/** A leased message and its subscription. */
type Leased = LeasedIn<Subscription>;

/** Fetches of one consumer that may wait at once (NATS' default); more are refused with 429. */
export const MAX_WAITING_FETCHES = 512;

/** What a settle request did: how many it settled, and which items named no lease (any more). */
export interface SettleResult {
  settled: number;
  lost: unknown[];
}

/** Why a fetch's wait ends once it was answered: only its own listeners see it. */
const WOKEN = 'fetch woken';

/**
 * The pull side of the subscription model: fetches lease messages of all a consumer's subscriptions to a member
 * (long polling: waits for a change, never polls), and ack / nack / extend / terminate / recover settle them through
 * the same subscription the push members use. Settlements are answered once durable.
 */
@Injectable()
export class PullService implements BeforeApplicationShutdown {
  private readonly waiting = new Map<string, number>();
  /** Where the next fetch of a consumer starts among its topics, so no topic starves the others. */
  private readonly rotation = new Map<string, number>();
  private readonly closing = new AbortController();

  constructor(
    private readonly registry: DispatcherRegistry,
    private readonly subscriptions: SubscriptionContainer,
    private readonly arrivals: SubscriptionArrivals,
  ) {}

  /** `{"messages":[…]}`: up to `max` messages, waiting up to `waitMs` for the first. */
  async fetch(consumerId: string, request: FetchRequest, clientGone: AbortSignal): Promise<Buffer> {
    const definition = this.registry.get(consumerId);
    const roster = hasRoster(definition);
    if (roster && request.member === undefined) throw new MemberRequiredError(consumerId);
    const member = request.member ?? `pull:${randomUUID()}`;
    const leaseMs = request.ackTimeoutMs ?? definition.ackTimeoutMs;
    const deadline = performance.now() + request.waitMs;
    const waiting = this.waiting.get(consumerId) ?? 0;
    if (waiting >= MAX_WAITING_FETCHES) throw new TooManyFetchesError(consumerId, MAX_WAITING_FETCHES);
    this.waiting.set(consumerId, waiting + 1);
    // A shutdown answers waiting fetches with what they hold (usually nothing) rather than holding the broker open.
    const cancelled = anySignal([clientGone, this.closing.signal]);
    try {
      for (;;) {
        // Looking first, without listening: a fetch that finds messages (most, under load) sets up no waiting.
        const found = await this.take(consumerId, this.subscriptions.subscriptionsOf(consumerId), member, request, leaseMs);
        if (found.length > 0 || deadline - performance.now() <= 0 || cancelled.signal.aborted) {
          return await this.answer(found, request.autoAck);
        }
        const wake = new AbortController();
        const stopWaiting: Array<() => void> = [];
        const woken = anySignal([wake.signal, cancelled.signal]);
        try {
          const subscriptions = this.subscriptions.subscriptionsOf(consumerId);
          // Waiting, a named member competes for the even split: others leave it its share (docs/delivery.md).
          if (request.member !== undefined) for (const subscription of subscriptions) stopWaiting.push(subscription.waiting(member));
          // Listening before looking again: a change between the two must not be missed. A member of a roster looks
          // again every half lease even when nothing changed: that keeps it alive there while it waits.
          const left = Math.max(0, deadline - performance.now());
          const remaining = roster ? Math.min(left, definition.ackTimeoutMs / 2) : left;
          const changed = Promise.race([
            this.arrivals.wait(remaining, woken.signal),
            ...subscriptions.map((subscription) => subscription.whenChanged(remaining, woken.signal)),
          ]);
          const leased = await this.take(consumerId, subscriptions, member, request, leaseMs);
          if (leased.length > 0 || left <= 0 || cancelled.signal.aborted) {
            wake.abort(WOKEN);
            return await this.answer(leased, request.autoAck);
          }
          await changed;
        } finally {
          // A reason of our own: `abort()` without one builds a DOMException, with its stack, every time.
          wake.abort(WOKEN);
          woken.dispose();
          for (const done of stopWaiting) done();
        }
      }
    } finally {
      cancelled.dispose();
      this.waiting.set(consumerId, (this.waiting.get(consumerId) ?? 1) - 1);
    }
  }

  /** Before the HTTP server closes, so that no long poll keeps it waiting for up to `MAX_FETCH_WAIT_MS`. */
  beforeApplicationShutdown(): void {
    this.closing.abort();
  }

  /** With `upTo`, also every message of that topic at or below its offset leased to the consumer (JMS CLIENT_ACKNOWLEDGE). */
  async ack(consumerId: string, request: SettleRequest): Promise<SettleResult> {
    const upTo = request.upTo ? this.leasesUpTo(consumerId, request.upTo) : [];
    return this.settle(consumerId, request, ({ subscription, slot }) => subscription.ack(slot, slot.deliveries), upTo);
  }

  /** @throws SubscriptionNotFoundError when the consumer does not read `upTo.topic` */
  private leasesUpTo(consumerId: string, { topic, offset, member }: UpTo): Leased[] {
    this.registry.get(consumerId);
    const subscription = this.subscriptions.subscriptionOf(consumerId, topic);
    if (!subscription) throw new SubscriptionNotFoundError(consumerId, topic);
    return subscription.leasesUpTo(offset, member).map((slot) => ({ subscription, slot }));
  }

  /** The NACK past `maxNackRetries` is answered once its dead letter and the move past the message are durable. */
  async nack(consumerId: string, request: SettleRequest): Promise<SettleResult> {
    return this.settle(consumerId, request, ({ subscription, slot }) =>
      subscription.release(slot, { outcome: 'NACK', counted: true, nack: {}, delayMs: request.delayMs }, slot.deliveries),
    );
  }

  /**
   * Answered once each dead letter and the move past its message are durable (one journal record). A message
   * terminated already (or being terminated by another request) is `lost`: no second dead letter is made.
   */
  async terminate(consumerId: string, request: SettleRequest): Promise<SettleResult> {
    const reason = request.reason ?? 'terminated by the consumer';
    return this.settle(consumerId, request, ({ subscription, slot }) => subscription.terminate(slot, 'TERMINATED', reason));
  }

  /** Moves the leases' deadlines to now + `ackTimeoutMs` (default the dispatcher's): the work is in progress. */
  extend(consumerId: string, request: SettleRequest): { extended: number; lost: unknown[] } {
    const leaseMs = request.ackTimeoutMs ?? this.registry.get(consumerId).ackTimeoutMs;
    const lost: unknown[] = [];
    let extended = 0;
    request.items.forEach((item) => {
      const leased = this.find(consumerId, item);
      if (leased && leased.subscription.extend(leased.slot, leaseMs)) extended++;
      else lost.push(itemJson(item));
    });
    return { extended, lost };
  }

  /**
   * Every message `member` holds goes back now, to be delivered again (marked redelivered). `leave`: the member also
   * leaves the consumer's roster (`maxActiveMembers`, `maxMembers`), so a backup takes its place at once.
   */
  recover(consumerId: string, member: string, leave = false): { released: number } {
    this.registry.get(consumerId);
    let released = 0;
    for (const subscription of this.subscriptions.subscriptionsOf(consumerId)) {
      if (leave) subscription.leave(member);
      for (const slot of subscription.leasesOf(member)) {
        void subscription.release(slot, { outcome: 'RECOVER', counted: true }, slot.deliveries);
        released++;
      }
    }
    return { released };
  }

  private async take(consumerId: string, subscriptions: Subscription[], member: string, request: FetchRequest, leaseMs: number) {
    const leased: Leased[] = [];
    if (subscriptions.length === 0) return leased;
    const start = (this.rotation.get(consumerId) ?? 0) % subscriptions.length;
    this.rotation.set(consumerId, start + 1);
    let bytes = 0;
    for (let i = 0; i < subscriptions.length && leased.length < request.max && bytes < request.maxBytes; i++) {
      const subscription = subscriptions[(start + i) % subscriptions.length];
      const room = leased.length === 0 ? request.maxBytes : request.maxBytes - bytes;
      for (const slot of await subscription.acquire(member, request.max - leased.length, room, leaseMs, request.member !== undefined)) {
        leased.push({ subscription, slot });
        bytes += slot.bytes;
      }
    }
    return leased;
  }

  private async answer(leased: Leased[], autoAck: boolean): Promise<Buffer> {
    const bodies = leased.map(({ subscription, slot }) => subscription.deliveryBody(slot));
    if (autoAck) {
      // Settled on send: the answer leaves only once that is durable, so a crash cannot deliver them again.
      for (const { subscription, slot } of leased) subscription.ack(slot);
      await Promise.all([...new Set(leased.map(({ subscription }) => subscription))].map((subscription) => subscription.durable()));
    }
    return encodeDeliveryBatch(bodies);
  }

  /**
   * Applies `apply` to each item's lease (and to `found`, leases found otherwise: a cumulative ack's) and answers once
   * what it changed is durable: the subscriptions' state, and whatever `apply` resolves (a dead letter with the move
   * past its message). An item naming no lease, or whose `apply` resolves false (it changed nothing, or the broker
   * stopped before it was durable), is `lost`.
   */
  private async settle(
    consumerId: string,
    request: SettleRequest,
    apply: (leased: Leased) => void | Promise<boolean>,
    found: readonly Leased[] = [],
  ): Promise<SettleResult> {
    this.registry.get(consumerId);
    const outcomes: Array<boolean | Promise<boolean>> = [];
    const touched = new Set<Subscription>();
    for (const item of request.items) {
      const leased = this.find(consumerId, item);
      if (!leased) {
        outcomes.push(false);
        continue;
      }
      const member = leased.slot.member;
      outcomes.push(apply(leased) ?? true);
      if (member) leased.subscription.seen(member);
      touched.add(leased.subscription);
    }
    // After the items, so that a lease named both ways counts once, as settled.
    let settledFound = 0;
    const foundOutcomes: Array<ReturnType<typeof apply>> = [];
    for (const leased of found) {
      if (leased.slot.state !== SlotState.LEASED) continue;
      const member = leased.slot.member;
      foundOutcomes.push(apply(leased));
      if (member) leased.subscription.seen(member);
      touched.add(leased.subscription);
      settledFound++;
    }
    const [settled] = await Promise.all([
      Promise.all(outcomes),
      Promise.all(foundOutcomes),
      ...[...touched].map((subscription) => subscription.durable()),
    ]);
    const lost = request.items.filter((_, i) => !settled[i]).map(itemJson);
    return { settled: settledFound + request.items.length - lost.length, lost };
  }

  private find(consumerId: string, item: SettleItem): Leased | undefined {
    if ('id' in item) return this.subscriptions.leaseOfId(consumerId, item.id);
    const ref: LeaseRef | undefined = 'lease' in item ? parseLeaseToken(item.lease) : item;
    if (!ref) return undefined;
    const subscription = this.subscriptions.subscriptionOf(consumerId, ref.topic);
    const slot = subscription?.leaseAt(ref.offset, ref.delivery);
    return subscription && slot ? { subscription, slot } : undefined;
  }
}

function itemJson(item: SettleItem): unknown {
  return 'lease' in item ? item.lease : item;
}

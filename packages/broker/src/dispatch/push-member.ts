import { performance } from 'node:perf_hooks';
import type { ConsumerAcknowledgement } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { backoffDelay, maxBackoffDelay, sleep } from '@mmmq/core';
import { applyConsumerReply } from './consumer-reply';
import { encodeDeliveryBatch } from './delivery-body';
import { DispatcherDefinition } from './dispatcher-definition';
import { PUSH_BATCH_MAX_BYTES } from './ledger/batch-bytes';
import { Slot } from './ledger/slot';
import { pushIdOf } from './push-id';
import { DeliveryFailedError, PushOrder, PushTarget, PushTooLargeError, PushUnauthorizedError } from './push-sender';
import { PushSizeLimit } from './push-size-limit';
import { SharedPushRefusedError } from './shared-push-lane';
import type { DeliveryContext } from './delivery-context';
import type { MemberSubscription } from './member-subscription';
import { StallWatch } from '../events/stall-watch';

/**
 * `active`: delivering, or retrying after failures with the usual backoff. `unauthorized`: the consumer answered
 * 401 (it refuses the pushes' signature): a misconfiguration, retried at the longest backoff until a push
 * succeeds or the dispatcher is registered again.
 */
export type PushMemberState = 'active' | 'unauthorized';

/** A push member as `GET /mmmq/subscriptions` shows it: its state and whether it is backing off after failures. */
export interface PushMemberView {
  /** The push host's URL. */
  host: string;
  state: PushMemberState;
  /** Pushes failed in a row; 0 once the consumer answers. */
  failedPushes: number;
  /** While it waits before the next retry: when that wait ends (ISO 8601). */
  backingOffUntil?: string;
  /** Why its last push failed, and when (kept after it recovers). */
  lastError?: string;
  lastErrorAt?: string;
  /** While the consumer's 413 answers keep its pushes below `batchSize`: the most messages a push carries. */
  batchLimit?: number;
}

/** A push on its way: the messages it carries and, once back, the consumer's replies or why there are none. */
interface SentPush {
  slots: Slot[];
  /** Each slot's delivery this push is: a reply only settles a slot still leased as that delivery. */
  deliveries: number[];
  /** Slots a streamed reply settled already, as their lines arrived: the end of the push leaves them be. */
  applied: boolean[];
  reply: Promise<ConsumerAcknowledgement[] | Error>;
}

/** A push before its reply is known. */
type Taken = Omit<SentPush, 'reply'>;

/**
 * One push host of a subscription: takes windows of messages from the subscription (one message, or up to
 * `batchSize`), with up to `maxInFlight` pushes on their way, and settles the replies in the order the pushes were
 * sent. A NACKed message goes back to the subscription (the next window takes it first, lowest offset first); a
 * failed push gives back its messages and those of the pushes behind it (cut off), and the member backs off. A push
 * refused as too large (413) is cut off the same way, but is no delivery and costs no backoff: its messages are sent
 * again at once in smaller pushes ({@link PushSizeLimit}), or dead-lettered (`TOO_LARGE`) if it held one.
 * A dispatcher with `ordered: false` has independent pushes instead: see {@link pushIndependently}.
 * Signals while it drains are remembered: it looks for work again before it stops.
 */
export class PushMember {
  private readonly logger = new Logger(PushMember.name);
  private readonly abortSends = new AbortController();
  /** Ends the backoff under way early (see {@link retryNow} and {@link stop}); a member backs off once at a time. */
  private waker?: AbortController;
  private definition: DispatcherDefinition;
  private running?: Promise<void>;
  private wanted = false;
  /** While an unordered member waits for a push to be answered: ends the wait, to take what a signal brought. */
  private woken?: () => void;
  private stopping?: Promise<void>;
  private failedPushes = 0;
  private currentState: PushMemberState = 'active';
  /** Epoch ms the backoff under way ends at; undefined while not backing off. */
  private backingOffUntil?: number;
  private lastError?: { message: string; at: string };
  private readonly sizeLimit = new PushSizeLimit();
  /** The consumer refused this subscription's windows in shared pushes: it pushes on its own. */
  private sharedRefused = false;
  private readonly stall: StallWatch;
  readonly id: string;

  constructor(
    private readonly subscription: MemberSubscription,
    private target: PushTarget,
    private readonly context: DeliveryContext,
  ) {
    this.definition = subscription.definition;
    this.id = target.host.toUrl();
    this.stall = new StallWatch(context.events, { consumerId: target.consumerId, topic: subscription.queue.topic.name, host: this.id });
  }

  get state(): PushMemberState {
    return this.currentState;
  }

  /** Waiting before its next try after a failure: it does not compete for messages meanwhile. */
  get backingOff(): boolean {
    return this.backingOffUntil !== undefined;
  }

  view(): PushMemberView {
    const view: PushMemberView = { host: this.id, state: this.currentState, failedPushes: this.failedPushes };
    if (this.backingOffUntil !== undefined) view.backingOffUntil = new Date(this.backingOffUntil).toISOString();
    if (this.lastError) Object.assign(view, { lastError: this.lastError.message, lastErrorAt: this.lastError.at });
    const batchLimit = this.sizeLimit.limitBelow(this.definition.batchSize);
    if (batchLimit !== undefined) view.batchLimit = batchLimit;
    return view;
  }

  /** The dispatcher changed but kept this host: pushes from now on follow the new settings. */
  retarget(definition: DispatcherDefinition): void {
    this.definition = definition;
    this.target = { ...this.target, signingSecret: definition.signingSecret };
  }

  /** Leaves the `unauthorized` state and ends the current backoff, so delivery is tried again at once. */
  retryNow(): void {
    this.currentState = 'active';
    this.failedPushes = 0;
    this.waker?.abort();
  }

  signal(): void {
    this.wanted = true;
    this.woken?.();
    if (this.stopping || this.running) return;
    this.running = this.drain();
  }

  private async drain(): Promise<void> {
    try {
      while (this.wanted && !this.stopping) {
        this.wanted = false;
        const failure = await (this.definition.ordered ? this.pushAll() : this.pushIndependently());
        // Split or dead-lettered, or to be pushed on its own: sent again at once.
        if (failure instanceof PushTooLargeError || failure instanceof SharedPushRefusedError) this.wanted = true;
        else if (failure && !this.stopping) {
          this.wanted = true;
          this.subscription.failing(this.id);
          if (failure instanceof PushUnauthorizedError) this.refusedByConsumer(failure);
          this.stall.failed(failure, this.currentState === 'unauthorized');
          await this.backoff(++this.failedPushes, failure);
        }
      }
    } catch (error) {
      this.logger.error(`${this.label()}: delivery stopped unexpectedly`, (error as Error).stack);
    } finally {
      this.running = undefined;
    }
  }

  /**
   * Pushes windows, up to `maxInFlight` at once, and settles their replies in the order they were sent, until
   * nothing is left to take or the member stops (undefined), or a push fails: then the pushes behind it are cut
   * off, all their messages go back, and the failure is returned for the caller to back off (or, for a 413, to
   * go on at once).
   */
  private async pushAll(): Promise<Error | undefined> {
    const { maxInFlight, batchSize } = this.definition;
    // A consumer that asked for several pushes in flight orders them by session and sequence; a new session
    // after a failure means it never waits for a push that was cut off.
    const session = maxInFlight > 1 ? { id: randomUUID(), next: 0 } : undefined;
    const cutOff = new AbortController();
    const stop = () => cutOff.abort();
    this.abortSends.signal.addEventListener('abort', stop, { once: true });
    const inFlight: SentPush[] = [];
    try {
      for (;;) {
        while (inFlight.length < maxInFlight && !this.stopping) {
          const slots = await this.subscription.acquire(this.id, this.sizeLimit.next(batchSize), PUSH_BATCH_MAX_BYTES, Infinity);
          if (slots.length === 0) break;
          const order = session && { session: session.id, sequence: session.next++ };
          const taken = { slots, deliveries: slots.map((slot) => slot.deliveries), applied: slots.map(() => false) };
          inFlight.push({ ...taken, reply: this.push(taken, cutOff.signal, order).catch((error: Error) => error) });
        }
        const sent = inFlight.shift();
        if (!sent) return undefined;
        const replies = await sent.reply;
        if (replies instanceof Error) {
          cutOff.abort();
          if (replies instanceof PushTooLargeError) this.refusedAsTooLarge(sent, replies);
          else this.giveBack(sent, replies);
          if (replies instanceof SharedPushRefusedError) this.sharedRefused = true;
          for (const behind of inFlight) {
            const reply = await behind.reply;
            this.giveBack(behind, reply instanceof Error ? reply : undefined);
          }
          return this.abortSends.signal.aborted ? undefined : replies;
        }
        this.answered();
        this.sizeLimit.accepted(sent.slots.length);
        this.applyReplies(sent, replies);
      }
    } finally {
      this.abortSends.signal.removeEventListener('abort', stop);
    }
  }

  /**
   * `ordered: false`: up to `maxInFlight` pushes at once, none numbered, each settled as its own reply comes — a
   * window's place frees as soon as its push is answered, whatever the pushes sent before it. A failed push gives back
   * its own messages only; no new push starts after it, and once the pushes still on their way are answered (or fail
   * too) the failure is returned, for the caller to back off. A 413 or a shared push refused is no failure here: its
   * messages go back (or are dead-lettered) and are taken again at once. Ordering keys keep their order because the
   * ledger never leases a key's next message while one of it is leased.
   */
  private async pushIndependently(): Promise<Error | undefined> {
    const { maxInFlight, batchSize } = this.definition;
    const inFlight = new Set<Promise<void>>();
    let failure: Error | undefined;
    const settle = (taken: Taken, reply: ConsumerAcknowledgement[] | Error) => {
      if (!(reply instanceof Error)) {
        this.answered();
        this.sizeLimit.accepted(taken.slots.length);
        return this.applyReplies(taken, reply);
      }
      if (reply instanceof PushTooLargeError) return this.refusedAsTooLarge(taken, reply);
      this.giveBack(taken, reply);
      if (reply instanceof SharedPushRefusedError) this.sharedRefused = true;
      else failure ??= reply;
    };
    for (;;) {
      while (failure === undefined && inFlight.size < maxInFlight && !this.stopping) {
        this.wanted = false;
        const slots = await this.subscription.acquire(this.id, this.sizeLimit.next(batchSize), PUSH_BATCH_MAX_BYTES, Infinity);
        if (slots.length === 0) break;
        const taken: Taken = { slots, deliveries: slots.map((slot) => slot.deliveries), applied: slots.map(() => false) };
        const done: Promise<void> = this.push(taken, this.abortSends.signal)
          .catch((error: Error) => error)
          .then((reply) => settle(taken, reply))
          .finally(() => inFlight.delete(done));
        inFlight.add(done);
      }
      if (inFlight.size === 0) return this.abortSends.signal.aborted ? undefined : failure;
      // A push answered frees a place; with places free, a signal (new messages, a release) may bring work for them.
      const room = failure === undefined && inFlight.size < maxInFlight && !this.stopping;
      if (room && this.wanted) continue;
      const woken = room ? new Promise<void>((resolve) => (this.woken = resolve)) : undefined;
      await Promise.race(woken ? [...inFlight, woken] : inFlight);
      this.woken = undefined;
    }
  }

  /**
   * Messages of a push that failed (or was cut off) go back, but for those its streamed reply settled already; they
   * count unless the push never left whole.
   */
  private giveBack({ slots, deliveries, applied }: Taken, error: Error | undefined): void {
    const counted = !(error instanceof DeliveryFailedError) || error.reachedConsumer;
    const outcome = error ? shortOutcome(error) : 'cut off behind a failed push';
    slots.forEach((slot, i) => applied[i] || void this.subscription.release(slot, { outcome, counted }, deliveries[i]));
  }

  /**
   * A 413 is no delivery. Several messages go back (the lowest offsets are taken first again, so order holds) and
   * the next pushes are smaller; a single message cannot be pushed smaller: it is dead-lettered (`TOO_LARGE`).
   */
  private refusedAsTooLarge({ slots, deliveries }: Taken, error: PushTooLargeError): void {
    const outcome = shortOutcome(error);
    if (slots.length === 1) {
      this.sizeLimit.messageTooLarge();
      if (slots[0].deliveries === deliveries[0]) void this.subscription.terminate(slots[0], 'TOO_LARGE', outcome, false);
      return;
    }
    const size = this.sizeLimit.tooLarge(slots.length);
    this.logger.warn(`${this.label()}: a push of ${slots.length} messages was refused as too large (${outcome}); pushing ${size} at most`);
    slots.forEach((slot, i) => void this.subscription.release(slot, { outcome, counted: false }, deliveries[i]));
  }

  /** Each reply applied to its message (see applyConsumerReply), unless its streamed line did already. */
  private applyReplies(sent: Taken, replies: ConsumerAcknowledgement[]): void {
    sent.slots.forEach((_, i) => this.applyReply(sent, i, replies[i]));
  }

  private applyReply({ slots, deliveries, applied }: Taken, i: number, reply: ConsumerAcknowledgement): void {
    if (applied[i]) return;
    applied[i] = true;
    void applyConsumerReply(this.subscription, slots[i], deliveries[i], reply);
  }

  private push(sent: Taken, signal: AbortSignal, order?: PushOrder): Promise<ConsumerAcknowledgement[]> {
    const { slots } = sent;
    const topic = this.subscription.queue.topic.name;
    const bodies = slots.map((slot) => this.subscription.deliveryBody(slot));
    const id = pushIdOf(
      this.target.consumerId,
      topic,
      slots.map((slot) => slot.offset),
    );
    const extendedUntil = () => Math.max(...slots.map((slot) => slot.extendedUntil));
    const { sender, observer } = this.context;
    const started = observer && performance.now();
    const replies = this.sharesPushes()
      ? sender.sendShared(
          this.target,
          { consumerId: this.target.consumerId, topic, bodies, id, order, extendedUntil },
          signal,
          (i, reply) => this.applyReply(sent, i, reply),
        )
      : this.definition.batchSize === 1
        ? sender.send(this.target, { body: bodies[0], id, order, extendedUntil }, signal).then((reply) => [reply])
        : sender.sendBatch(
            this.target,
            { body: encodeDeliveryBatch(bodies), id, order, extendedUntil },
            bodies.length,
            signal,
            (i, reply) => this.applyReply(sent, i, reply),
          );
    if (observer === undefined || started === undefined) return replies;
    return replies.then((answered) => {
      observer.pushAnswered(topic, this.target.consumerId, (performance.now() - started) / 1000);
      return answered;
    });
  }

  /**
   * Whether this window travels in a shared push with the other subscriptions' windows for the same host: when the
   * consumer says it takes them (docs/delivery.md § Shared pushes) and has not refused this subscription's.
   */
  private sharesPushes(): boolean {
    return !this.sharedRefused && this.context.sender.sharesPushes(this.id);
  }

  /** A 401: counted every time, logged once when the member enters the `unauthorized` state. */
  private refusedByConsumer(error: PushUnauthorizedError): void {
    this.subscription.stats.unauthorized++;
    if (this.currentState === 'unauthorized') return;
    this.currentState = 'unauthorized';
    this.logger.error(
      `${this.label()}: the consumer refuses the pushes as unauthorized (${error.message}). The dispatcher's ` +
        `signingSecret and the consumer's signing secrets do not match. Retrying every ` +
        `${this.context.options.backoff.maxMs} ms until a push succeeds or the dispatcher is registered again ` +
        `(PUT /mmmq/dispatchers/${this.target.consumerId})`,
    );
  }

  /** The consumer answered a push. */
  private answered(): void {
    this.failedPushes = 0;
    this.stall.answered();
    this.subscription.seen(this.id);
    if (this.currentState !== 'unauthorized') return;
    this.currentState = 'active';
    this.logger.log(`${this.label()}: the consumer accepts the pushes again`);
  }

  /** Waits before a retry; while `unauthorized` at the longest backoff and without a warning each time (it was logged once). */
  private async backoff(failures: number, error: Error): Promise<void> {
    const { backoff } = this.context.options;
    const unauthorized = this.currentState === 'unauthorized';
    const wait = unauthorized ? maxBackoffDelay(backoff) : backoffDelay(failures, backoff);
    this.subscription.stats.recordFailure(error.message);
    this.lastError = { message: error.message, at: new Date().toISOString() };
    if (!unauthorized) this.logger.warn(`${this.label()}: delivery failed (${error.message}); retry ${failures} in ${wait} ms`);
    if (this.stopping) return;
    const waker = (this.waker = new AbortController());
    const { observer } = this.context;
    const topic = this.subscription.queue.topic.name;
    observer?.backingOff(topic, this.target.consumerId, 1);
    this.backingOffUntil = Date.now() + wait;
    try {
      await sleep(wait, waker.signal);
    } finally {
      this.waker = undefined;
      this.backingOffUntil = undefined;
      observer?.backingOff(topic, this.target.consumerId, -1);
    }
  }

  /**
   * Stops for good: no new push starts, a backoff ends at once, pushes in flight get `graceMs` to finish before they
   * are abandoned (their messages go back). Idempotent.
   */
  stop(graceMs = 0): Promise<void> {
    this.stopping ??= (async () => {
      this.waker?.abort();
      const running = this.running;
      if (running && graceMs > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([running, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
        clearTimeout(timer);
      }
      this.abortSends.abort();
      await running;
    })();
    return this.stopping;
  }

  private label(): string {
    return `${this.subscription.label()} (${this.id})`;
  }
}

/** What a failed delivery's history says: the reason after the consumer's URL. */
function shortOutcome(error: Error): string {
  const at = error.message.indexOf(' failed: ');
  return at >= 0 ? error.message.slice(at + ' failed: '.length) : error.message;
}

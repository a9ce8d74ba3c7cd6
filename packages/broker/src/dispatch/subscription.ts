import { Acknowledgement, ConsumerAcknowledgement } from '@mmmq/core';
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { CheckpointFile } from '../storage/checkpoint-file';
import { TopicQueue } from '../storage/topic-queue';
import { backoffDelay, maxBackoffDelay, sleep } from './backoff';
import { DeadLetterWriter } from './dead-letter-writer';
import { encodeDelivery, encodeDeliveryBatch } from './delivery-body';
import { ResolvedDeliveryOptions } from './delivery.options';
import { DispatcherDefinition } from './dispatcher-definition';
import { pushIdOf } from './push-id';
import { PushOrder, PushSender, PushUnauthorizedError } from './push-sender';
import { PendingMessage, PushWindow, toWindow } from './push-window';
import { SubscriptionStats } from './subscription-stats';

/** A window read from the log, until every message in it is ACKed or dead-lettered. */
interface OpenWindow {
  /** The offset the checkpoint may move to once this window and every one before it are settled. */
  end: number;
  /** Its messages not settled yet; empty once settled. Never changed while the window is in a push. */
  open: PendingMessage[];
}

/** A push on its way: the window it carries and, once back, the consumer's replies or why there are none. */
interface SentPush {
  window: OpenWindow;
  reply: Promise<ConsumerAcknowledgement[] | Error>;
}

/**
 * `active`: delivering, or retrying after failures with the usual backoff. `unauthorized`: the consumer answered
 * 401 (it refuses the pushes' signature): a misconfiguration, retried at the longest backoff until a push
 * succeeds or the dispatcher is registered again.
 */
export type SubscriptionState = 'active' | 'unauthorized';

/** What a subscription needs besides its topic, consumer and checkpoint. */
export interface DeliveryContext {
  sender: PushSender;
  deadLetters: DeadLetterWriter;
  options: ResolvedDeliveryOptions;
}

/**
 * One (topic, consumer) pair: delivers the topic's entries in offset order, in windows (one message, or up to
 * `batchSize` for consumers that asked for batches), with up to `maxInFlight` pushes on their way at once. The
 * checkpoint moves past a window once it and every window before it are ACKed or dead-lettered durably; it is
 * written in the background, at most `maxInFlight + 1` windows behind what was pushed. A NACKed message is sent
 * again in the next push, a failed push after a backoff, together with every push that was in flight behind it.
 * Signals while a drain runs are coalesced: the drain re-reads the tail before it stops.
 */
export class Subscription {
  private readonly logger = new Logger(Subscription.name);
  private readonly stopSleeping = new AbortController();
  /** End the backoffs under way early (see {@link retryNow}). */
  private readonly wakers = new Set<AbortController>();
  private readonly abortSends = new AbortController();
  private running?: Promise<void>;
  private stopping?: Promise<void>;
  /** The next offset the checkpoint moves to: every window before it is settled. */
  private offset: number;
  /** The next offset to read from the log. */
  private readOffset: number;
  /** Windows read and not settled yet, in offset order. */
  private readonly unsettled: OpenWindow[] = [];
  /** Windows to push (again) before reading new ones: NACKed messages, and what a failed push took down. */
  private readonly resend: OpenWindow[] = [];
  /** Ends of the windows read that the durable checkpoint has not passed yet. */
  private readonly windowEnds: number[] = [];
  /** The checkpoint writer, while it runs; it writes the newest settled offset each time round. */
  private checkpointing?: Promise<void>;
  /**
   * Pushes still to send that may repeat what reached the consumer before a restart or a consumer change: the
   * checkpoint trails the last push by up to `maxInFlight + 1` windows.
   */
  private maybeDeliveredPushes: number;
  /** Failed pushes since the last answered one: the backoff grows with it. */
  private failedPushes = 0;
  private currentState: SubscriptionState = 'active';
  readonly stats = new SubscriptionStats();

  constructor(
    readonly queue: TopicQueue,
    readonly definition: DispatcherDefinition,
    private readonly checkpoint: CheckpointFile,
    resumed: boolean,
    private readonly context: DeliveryContext,
  ) {
    this.offset = checkpoint.offset;
    this.readOffset = checkpoint.offset;
    this.maybeDeliveredPushes = resumed ? this.windowsAheadOfCheckpoint : 0;
  }

  get consumerId(): string {
    return this.definition.consumerId;
  }

  /** The next offset this consumer gets: every message before it was ACKed or dead-lettered. */
  get position(): number {
    return this.offset;
  }

  get state(): SubscriptionState {
    return this.currentState;
  }

  /**
   * The consumer registered again: leave the `unauthorized` state and end the current backoff, so delivery is
   * tried again at once.
   */
  retryNow(): void {
    this.currentState = 'active';
    this.failedPushes = 0;
    for (const waker of this.wakers) waker.abort();
  }

  /** Windows pushed past the durable checkpoint at most: those in flight and the one settled before them. */
  private get windowsAheadOfCheckpoint(): number {
    return this.definition.maxInFlight + 1;
  }

  /** Starts a drain if there is a backlog and none is running. Cheap; call it on every commit. */
  signal(): void {
    if (this.stopping || this.running || !this.hasWork()) return;
    this.running = this.drain();
  }

  private hasWork(): boolean {
    return this.resend.length > 0 || this.readOffset < this.queue.tailOffset;
  }

  private async drain(): Promise<void> {
    try {
      while (!this.stopping && this.hasWork()) {
        const failure = await this.pushAll();
        if (failure && !this.stopping) {
          if (failure instanceof PushUnauthorizedError) this.refusedByConsumer(failure);
          await this.backoff(++this.failedPushes, `delivery of offset ${this.resend[0].open[0].offset} failed`, failure);
        }
      }
    } catch (error) {
      this.logger.error(`${this.label()}: drain stopped unexpectedly`, (error as Error).stack);
    } finally {
      // Same function as the tail check, so a signal after it always starts a new drain.
      this.running = undefined;
    }
  }

  /**
   * Pushes windows, up to `maxInFlight` at once, and settles their replies in the order they were sent, until
   * there is nothing left to push or the subscription stops (undefined), or a push fails: then the pushes behind
   * it are cut off, their windows wait to be resent, and the failure is returned for the caller to back off.
   */
  private async pushAll(): Promise<Error | undefined> {
    const { maxInFlight } = this.definition;
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
          const window = await this.nextWindow(inFlight.length === 0);
          if (!window) break;
          const order = session && { session: session.id, sequence: session.next++ };
          inFlight.push({ window, reply: this.push(window.open, cutOff.signal, order).catch((error: Error) => error) });
        }
        const sent = inFlight.shift();
        if (!sent) return undefined;
        const replies = await sent.reply;
        if (replies instanceof Error) {
          cutOff.abort();
          await Promise.all(inFlight.map((behind) => behind.reply));
          this.resend.unshift(sent.window, ...inFlight.map((behind) => behind.window));
          return this.abortSends.signal.aborted ? undefined : replies;
        }
        this.answered();
        if (!(await this.applyReplies(sent.window, replies))) {
          cutOff.abort();
          await Promise.all(inFlight.map((behind) => behind.reply));
          return undefined;
        }
        if (sent.window.open.length > 0) this.resend.unshift(sent.window);
        else this.settleWindows();
      }
    } finally {
      this.abortSends.signal.removeEventListener('abort', stop);
    }
  }

  /**
   * The next window to push: one to resend, else a new one from the log, unless the checkpoint is too far
   * behind (then, with nothing in flight, it waits for the checkpoint). Windows whose entries were all skipped
   * are settled here without a push.
   */
  private async nextWindow(idle: boolean): Promise<OpenWindow | undefined> {
    const resend = this.resend.shift();
    if (resend) return resend;
    while (!this.stopping && this.readOffset < this.queue.tailOffset) {
      if (this.windowEnds.length >= this.windowsAheadOfCheckpoint) {
        if (!idle || !this.checkpointing) return undefined;
        await this.checkpointing;
        continue;
      }
      const window = await this.readWindow(this.readOffset);
      if (!window) return undefined;
      const open: OpenWindow = { end: window.end, open: window.pending };
      this.readOffset = window.end;
      this.unsettled.push(open);
      this.windowEnds.push(window.end);
      if (open.open.length > 0) return open;
      this.settleWindows();
    }
    return undefined;
  }

  /** Reads up to `batchSize` committed entries; corrupt ones are skipped here, with a log line and a counter. */
  private async readWindow(offset: number): Promise<PushWindow | undefined> {
    const entries = await this.read(offset);
    if (!entries) return undefined;
    return toWindow(offset, entries, (at, error) => {
      this.stats.corruptSkipped++;
      this.logger.error(`${this.label()}: skipped corrupt entry at offset ${at}: ${error.message}`);
    });
  }

  /** Reads entries from `offset`; storage errors other than corruption are retried with backoff until stopped. */
  private async read(offset: number): Promise<Array<Buffer | Error> | undefined> {
    for (let failures = 1; !this.stopping; failures++) {
      try {
        const entries = await this.queue.peekMany(offset, this.definition.batchSize);
        return entries.length > 0 ? entries : undefined;
      } catch (error) {
        await this.backoff(failures, `reading offset ${offset} failed`, error);
      }
    }
    return undefined;
  }

  /**
   * Settles what the consumer answered: ACKs count as delivered, a NACK that says retrying cannot help or that
   * used up the retries is dead-lettered, the other NACKs stay open. False if stopped while dead-lettering.
   */
  private async applyReplies(window: OpenWindow, replies: ConsumerAcknowledgement[]): Promise<boolean> {
    const { maxNackRetries } = this.context.options;
    const open: PendingMessage[] = [];
    for (let i = 0; i < window.open.length; i++) {
      const message = window.open[i];
      const reply = replies[i];
      if (reply.acknowledgement === Acknowledgement.ACK) {
        this.stats.delivered++;
      } else if (reply.retry === false || ++message.nacks > maxNackRetries) {
        const reason = reply.retry === false ? 'REJECTED' : 'NACK';
        if (!(await this.deadLetter(message, reason, reply.message ?? 'NACK without a message'))) return false;
      } else {
        open.push(message);
      }
    }
    window.open = open;
    return true;
  }

  private async push(messages: PendingMessage[], signal: AbortSignal, order?: PushOrder): Promise<ConsumerAcknowledgement[]> {
    const { sender } = this.context;
    const bodies = messages.map((message) => {
      message.attempts++;
      const redelivered = message.attempts > 1 || this.maybeDeliveredPushes > 0;
      return encodeDelivery(message.envelope, message.offset, message.attempts, redelivered);
    });
    this.maybeDeliveredPushes = Math.max(0, this.maybeDeliveredPushes - 1);
    const { definition } = this;
    const id = pushIdOf(this.consumerId, this.queue.topic.name, messages.map((message) => message.offset));
    return definition.batchSize === 1
      ? [await sender.send(definition, { body: bodies[0], id, order }, signal)]
      : await sender.sendBatch(definition, { body: encodeDeliveryBatch(bodies), id, order }, bodies.length, signal);
  }

  /** A 401: counted every time, logged once when the subscription enters the `unauthorized` state. */
  private refusedByConsumer(error: PushUnauthorizedError): void {
    this.stats.unauthorized++;
    if (this.currentState === 'unauthorized') return;
    this.currentState = 'unauthorized';
    this.logger.error(
      `${this.label()}: the consumer refuses the pushes as unauthorized (${error.message}). The dispatcher's ` +
        `signingSecret and the consumer's signing secrets do not match. Retrying every ` +
        `${this.context.options.backoff.maxMs} ms until a push succeeds or the dispatcher is registered again ` +
        `(PUT /mmmq/dispatchers/${this.consumerId})`,
    );
  }

  /** The consumer answered a push. */
  private answered(): void {
    this.failedPushes = 0;
    if (this.currentState !== 'unauthorized') return;
    this.currentState = 'active';
    this.logger.log(`${this.label()}: the consumer accepts the pushes again`);
  }

  /** Moves the position past the settled windows at the front and has the checkpoint follow. */
  private settleWindows(): void {
    while (this.unsettled.length > 0 && this.unsettled[0].open.length === 0) this.offset = this.unsettled.shift()!.end;
    if (!this.checkpointing && this.checkpoint.offset < this.offset) this.checkpointing = this.writeCheckpoints();
  }

  /** Writes the newest settled offset until the checkpoint has caught up (or the subscription stopped). */
  private async writeCheckpoints(): Promise<void> {
    try {
      while (this.checkpoint.offset < this.offset) {
        const target = this.offset;
        if (!(await this.advance(target))) return;
        while (this.windowEnds.length > 0 && this.windowEnds[0] <= target) this.windowEnds.shift();
      }
    } finally {
      this.checkpointing = undefined;
    }
  }

  private async deadLetter({ envelope, offset, attempts }: PendingMessage, reason: string, lastError: string) {
    const letter = { envelope, consumerId: this.consumerId, offset, attempts, reason, lastError };
    for (let failures = 1; ; failures++) {
      try {
        const at = await this.context.deadLetters.write(letter);
        this.stats.deadLettered++;
        this.logger.warn(`${this.label()}: offset ${offset} ${reason} after ${attempts} attempts; dead-lettered at ${at}`);
        return true;
      } catch (error) {
        if (this.stopping) return false;
        await this.backoff(failures, `dead-lettering offset ${offset} failed`, error);
      }
    }
  }

  /** Records the new position durably; a failed write is retried, never skipped (false: stopped first). */
  private async advance(next: number): Promise<boolean> {
    for (let failures = 1; ; failures++) {
      try {
        await this.checkpoint.write(next);
        return true;
      } catch (error) {
        if (this.stopping) return false;
        await this.backoff(failures, `writing the checkpoint ${next} failed`, error);
      }
    }
  }

  /** Waits before a retry; while `unauthorized` at the longest backoff and without a warning each time (it was logged once). */
  private async backoff(failures: number, what: string, error: unknown): Promise<void> {
    const { backoff } = this.context.options;
    const unauthorized = this.currentState === 'unauthorized';
    const wait = unauthorized ? maxBackoffDelay(backoff) : backoffDelay(failures, backoff);
    this.stats.recordFailure((error as Error).message ?? String(error));
    if (!unauthorized) this.logger.warn(`${this.label()}: ${what} (${(error as Error).message}); retry ${failures} in ${wait} ms`);
    const waker = new AbortController();
    this.wakers.add(waker);
    await sleep(wait, AbortSignal.any([this.stopSleeping.signal, waker.signal]));
    this.wakers.delete(waker);
  }

  /**
   * Stops for good: no new push starts, a backoff ends at once, an in-flight push gets `graceMs` to finish
   * (its checkpoint is then written) before it is abandoned. Resolves when nothing runs any more. Idempotent.
   */
  stop(graceMs = 0): Promise<void> {
    this.stopping ??= (async () => {
      this.stopSleeping.abort();
      const running = this.running;
      if (running && graceMs > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([running, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
        clearTimeout(timer);
      }
      this.abortSends.abort();
      await running;
      await this.checkpointing;
    })();
    return this.stopping;
  }

  private label(): string {
    return `${this.queue.topic.name} → ${this.consumerId}`;
  }
}

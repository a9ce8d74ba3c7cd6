import { Acknowledgement, ConsumerAcknowledgement } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { CheckpointFile } from '../storage/checkpoint-file';
import { TopicQueue } from '../storage/topic-queue';
import { backoffDelay, sleep } from './backoff';
import { DeadLetterWriter } from './dead-letter-writer';
import { encodeDelivery, encodeDeliveryBatch } from './delivery-body';
import { ResolvedDeliveryOptions } from './delivery.options';
import { DispatcherDefinition } from './dispatcher-definition';
import { PushSender } from './push-sender';
import { PendingMessage, PushWindow, toWindow } from './push-window';
import { SubscriptionStats } from './subscription-stats';

/** Pushes sent whose checkpoint may not be durable yet: the one in flight, and the one before it. */
const PUSHES_AHEAD_OF_CHECKPOINT = 2;

/** What a subscription needs besides its topic, consumer and checkpoint. */
export interface DeliveryContext {
  sender: PushSender;
  deadLetters: DeadLetterWriter;
  options: ResolvedDeliveryOptions;
}

/**
 * One (topic, consumer) pair: delivers the topic's entries strictly in offset order, one push at a time (of one
 * message, or of up to `batchSize` for consumers that asked for batches), and moves the checkpoint only after
 * every message of the push was ACKed or dead-lettered durably (while the next push is on its way).
 * Signals while a drain runs are coalesced: the drain re-reads the tail before it stops.
 */
export class Subscription {
  private readonly logger = new Logger(Subscription.name);
  private readonly stopSleeping = new AbortController();
  private readonly abortSends = new AbortController();
  private running?: Promise<void>;
  private stopping?: Promise<void>;
  /** The next offset to push; the checkpoint file catches up with it in the background. */
  private offset: number;
  /** The checkpoint write in progress, at most one. */
  private checkpointing?: Promise<void>;
  /**
   * Pushes still to send that may repeat what reached the consumer before a restart or a consumer change: the
   * checkpoint trails the last push by up to {@link PUSHES_AHEAD_OF_CHECKPOINT} pushes.
   */
  private maybeDeliveredPushes: number;
  readonly stats = new SubscriptionStats();

  constructor(
    readonly queue: TopicQueue,
    readonly definition: DispatcherDefinition,
    private readonly checkpoint: CheckpointFile,
    resumed: boolean,
    private readonly context: DeliveryContext,
  ) {
    this.offset = checkpoint.offset;
    this.maybeDeliveredPushes = resumed ? PUSHES_AHEAD_OF_CHECKPOINT : 0;
  }

  get consumerId(): string {
    return this.definition.consumerId;
  }

  /** The next offset this consumer gets. */
  get position(): number {
    return this.offset;
  }

  /** Starts a drain if there is a backlog and none is running. Cheap; call it on every commit. */
  signal(): void {
    if (this.stopping || this.running || this.offset >= this.queue.tailOffset) return;
    this.running = this.drain();
  }

  private async drain(): Promise<void> {
    try {
      while (!this.stopping && this.offset < this.queue.tailOffset) await this.deliverFrom(this.offset);
    } catch (error) {
      this.logger.error(`${this.label()}: drain stopped unexpectedly`, (error as Error).stack);
    } finally {
      // Same function as the tail check, so a signal after it always starts a new drain.
      this.running = undefined;
    }
  }

  /**
   * Delivers the next window (one message, or up to `batchSize`) and starts moving the checkpoint past it. The
   * checkpoint write runs while the next window is pushed, but a window is only pushed once the checkpoint of
   * the window before the previous one is durable: a crash redelivers at most the last two windows.
   */
  private async deliverFrom(offset: number): Promise<void> {
    const window = await this.readWindow(offset);
    if (!window || !(await this.settle(window.pending))) return;
    await this.checkpointing;
    this.offset = window.end;
    this.checkpointing = this.advance(window.end);
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
   * Pushes the messages until each is ACKed or dead-lettered (true), or until stopped (false). Only the
   * unsettled ones are resent: a NACK at once, a failed push after a backoff.
   */
  private async settle(pending: PendingMessage[]): Promise<boolean> {
    const { maxNackRetries } = this.context.options;
    let open = pending;
    let failures = 0;
    while (open.length > 0) {
      if (this.stopping) return false;
      let replies: ConsumerAcknowledgement[];
      try {
        replies = await this.push(open);
      } catch (error) {
        if (this.abortSends.signal.aborted) return false;
        await this.backoff(++failures, `delivery of offset ${open[0].offset} failed`, error);
        continue;
      }
      failures = 0;
      const unsettled: PendingMessage[] = [];
      for (let i = 0; i < open.length; i++) {
        const message = open[i];
        const reply = replies[i];
        if (reply.acknowledgement === Acknowledgement.ACK) {
          this.stats.delivered++;
        } else if (reply.retry === false || ++message.nacks > maxNackRetries) {
          const reason = reply.retry === false ? 'REJECTED' : 'NACK';
          if (!(await this.deadLetter(message, reason, reply.message ?? 'NACK without a message'))) return false;
        } else {
          unsettled.push(message);
        }
      }
      open = unsettled;
    }
    return true;
  }

  private async push(messages: PendingMessage[]): Promise<ConsumerAcknowledgement[]> {
    const { sender } = this.context;
    const bodies = messages.map((message) => {
      message.attempts++;
      const redelivered = message.attempts > 1 || this.maybeDeliveredPushes > 0;
      return encodeDelivery(message.envelope, message.offset, message.attempts, redelivered);
    });
    const { host } = this.definition;
    const signal = this.abortSends.signal;
    const replies =
      this.definition.batchSize === 1
        ? [await sender.send(host, this.consumerId, bodies[0], signal)]
        : await sender.sendBatch(host, this.consumerId, encodeDeliveryBatch(bodies), bodies.length, signal);
    this.maybeDeliveredPushes = Math.max(0, this.maybeDeliveredPushes - 1);
    return replies;
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

  /** Records the new position durably; a failed checkpoint write is retried, never skipped (until stopped). */
  private async advance(next: number): Promise<void> {
    for (let failures = 1; ; failures++) {
      try {
        await this.checkpoint.write(next);
        return;
      } catch (error) {
        if (this.stopping) return;
        await this.backoff(failures, `writing the checkpoint ${next} failed`, error);
      }
    }
  }

  private async backoff(failures: number, what: string, error: unknown): Promise<void> {
    const wait = backoffDelay(failures, this.context.options.backoff);
    this.stats.recordFailure((error as Error).message ?? String(error));
    this.logger.warn(`${this.label()}: ${what} (${(error as Error).message}); retry ${failures} in ${wait} ms`);
    await sleep(wait, this.stopSleeping.signal);
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

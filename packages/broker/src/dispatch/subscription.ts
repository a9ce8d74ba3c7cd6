import { Acknowledgement } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { DecodedEnvelope, decodeEnvelope } from '../publish/message-envelope';
import { CheckpointFile } from '../storage/checkpoint-file';
import { CorruptionError } from '../storage/storage.errors';
import { TopicQueue } from '../storage/topic-queue';
import { backoffDelay, sleep } from './backoff';
import { DeadLetterWriter } from './dead-letter-writer';
import { encodeDelivery } from './delivery-body';
import { ResolvedDeliveryOptions } from './delivery.options';
import { DispatcherDefinition } from './dispatcher-definition';
import { PushSender } from './push-sender';
import { SubscriptionStats } from './subscription-stats';

/** What a subscription needs besides its topic, consumer and checkpoint. */
export interface DeliveryContext {
  sender: PushSender;
  deadLetters: DeadLetterWriter;
  options: ResolvedDeliveryOptions;
}

type Entry = { envelope: DecodedEnvelope } | { corrupt: Error };

/**
 * One (topic, consumer) pair: delivers the topic's entries strictly in offset order, one push at a time, and
 * moves the checkpoint only after the consumer ACKed or the message was dead-lettered durably.
 * Signals while a drain runs are coalesced: the drain re-reads the tail before it stops.
 */
export class Subscription {
  private readonly logger = new Logger(Subscription.name);
  private readonly stopSleeping = new AbortController();
  private readonly abortSends = new AbortController();
  private running?: Promise<void>;
  private stopping?: Promise<void>;
  private offset: number;
  /** The first message after a restart or a consumer change may have reached the consumer already. */
  private maybeDelivered: boolean;
  readonly stats = new SubscriptionStats();

  constructor(
    readonly queue: TopicQueue,
    readonly definition: DispatcherDefinition,
    private readonly checkpoint: CheckpointFile,
    resumed: boolean,
    private readonly context: DeliveryContext,
  ) {
    this.offset = checkpoint.offset;
    this.maybeDelivered = resumed;
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
      while (!this.stopping && this.offset < this.queue.tailOffset) await this.deliverAt(this.offset);
    } catch (error) {
      this.logger.error(`${this.label()}: drain stopped unexpectedly`, (error as Error).stack);
    } finally {
      // Same function as the tail check, so a signal after it always starts a new drain.
      this.running = undefined;
    }
  }

  private async deliverAt(offset: number): Promise<void> {
    const entry = await this.read(offset);
    if (!entry) return;
    if ('corrupt' in entry) {
      this.stats.corruptSkipped++;
      this.logger.error(`${this.label()}: skipped corrupt entry at offset ${offset}: ${entry.corrupt.message}`);
    } else if (!(await this.deliver(entry.envelope, offset))) {
      return;
    }
    await this.advance(offset + 1);
  }

  /** Reads the entry; storage errors other than corruption are retried with backoff until stopped. */
  private async read(offset: number): Promise<Entry | undefined> {
    for (let failures = 1; !this.stopping; failures++) {
      let payload: Buffer | null;
      try {
        payload = await this.queue.peek(offset);
      } catch (error) {
        if (error instanceof CorruptionError) return { corrupt: error };
        await this.backoff(failures, `reading offset ${offset} failed`, error);
        continue;
      }
      if (!payload) return undefined;
      try {
        return { envelope: decodeEnvelope(payload) };
      } catch (error) {
        // The CRC matched, so these bytes are what was written; retrying cannot make them a message.
        return { corrupt: error as Error };
      }
    }
    return undefined;
  }

  /** Pushes until ACK or dead letter (true), or until stopped (false). */
  private async deliver(envelope: DecodedEnvelope, offset: number): Promise<boolean> {
    const { sender, options } = this.context;
    let attempts = 0;
    let nacks = 0;
    let failures = 0;
    while (!this.stopping) {
      attempts++;
      const body = encodeDelivery(envelope, offset, attempts, attempts > 1 || this.maybeDelivered);
      try {
        const reply = await sender.send(this.definition.host, this.consumerId, body, this.abortSends.signal);
        this.maybeDelivered = false;
        if (reply.acknowledgement === Acknowledgement.ACK) {
          this.stats.delivered++;
          return true;
        }
        nacks++;
        failures = 0;
        const reason = reply.retry === false ? 'REJECTED' : 'NACK';
        if (reply.retry === false || nacks > options.maxNackRetries) {
          return this.deadLetter(envelope, offset, attempts, reason, reply.message ?? 'NACK without a message');
        }
      } catch (error) {
        if (this.abortSends.signal.aborted) return false;
        failures++;
        await this.backoff(failures, `delivery of offset ${offset} failed`, error);
      }
    }
    return false;
  }

  private async deadLetter(
    envelope: DecodedEnvelope,
    offset: number,
    attempts: number,
    reason: string,
    lastError: string,
  ): Promise<boolean> {
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

  /** Records the new position durably; a failed checkpoint write is retried, never skipped. */
  private async advance(next: number): Promise<void> {
    for (let failures = 1; ; failures++) {
      try {
        await this.checkpoint.write(next);
        this.offset = next;
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
    })();
    return this.stopping;
  }

  private label(): string {
    return `${this.queue.topic.name} → ${this.consumerId}`;
  }
}

import {
  Acknowledgement,
  ConsumerAcknowledgement,
  DEFAULT_ACK_TIMEOUT_MS,
  sleep,
  type TransportHandler,
  type TransportListener,
} from '@mmmq/core';
import type { Logger } from '@nestjs/common';
import { ConsumerClosingError } from '../errors/consumer-closing.error';
import { HandlerAbandonedError } from '../errors/handler-abandoned.error';
import { AckBatcher, DUPS_OK_ACK_BATCH, DUPS_OK_ACK_LINGER_MS, MAX_ACKS_PER_REQUEST } from './ack-batcher';
import { lostLease } from './lease-channel';
import { LeaseKeeper } from './lease-keeper';
import { pullBackoffDelay } from './pull-backoff';
import type { PulledMessage, PullClient } from './pull-client';
import type { ResolvedPull } from '../config/resolved-consumer-options';

export interface PullLoopDeps {
  client: PullClient;
  /** The consumer's handler of this listener's messages (the worker pool; it waits for room: the prefetch bounds). */
  handle: TransportHandler;
  settings: ResolvedPull;
  logger: Logger;
}

const PAST = { ack: 'acknowledged', nack: 'NACKed', terminate: 'terminated' } as const;

/**
 * Feeds one listener by fetching: long-polls the broker for up to what its prefetch leaves free (once at least
 * half is free), hands each message to the consumer's handler, and settles it by its lease with the acknowledgement
 * the handler resolves with (acks batched, see AckBatcher), unless the handler settled it already ({@link settleNow}). Broker errors back off (250 ms doubling to 30 s), with one warning per outage. `stop()` ends fetching at once;
 * `drain()` then waits for the messages already fetched and sends the last acks.
 */
export class PullLoop {
  private readonly abort = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly acks: AckBatcher;
  private readonly keeper: LeaseKeeper;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** Messages a `manual` handler settled before it returned: its acknowledgement changes nothing then. */
  private readonly settledByHandler = new WeakSet<PulledMessage>();

  constructor(
    private readonly listener: TransportListener,
    private readonly deps: PullLoopDeps,
  ) {
    const lazy = listener.ackMode === 'dupsOk';
    this.acks = new AckBatcher((leases) => deps.client.ack(listener.consumerId, leases), {
      lingerMs: lazy ? DUPS_OK_ACK_LINGER_MS : 0,
      maxBatch: lazy ? DUPS_OK_ACK_BATCH : MAX_ACKS_PER_REQUEST,
    });
    const { ackTimeoutMs, maxLeaseExtensionMs } = deps.settings;
    this.keeper = new LeaseKeeper(
      (leases, leaseMs) => deps.client.extend(listener.consumerId, leases, leaseMs),
      // Messages fetched with autoAck have no lease to keep.
      { leaseMs: ackTimeoutMs ?? DEFAULT_ACK_TIMEOUT_MS, maxExtensionMs: listener.ackMode === 'none' ? 0 : maxLeaseExtensionMs },
      deps.logger,
    );
  }

  start(): void {
    this.running ??= this.run();
  }

  /** Stops fetching (a long poll in progress is abandoned) and resolves once the loop has ended. */
  async stop(): Promise<void> {
    this.abort.abort();
    this.wake?.();
    await this.running;
  }

  /** Waits for every fetched message to be handled or refused, then sends the acknowledgements still waiting. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    this.keeper.stop();
    await this.acks.flush();
  }

  private async run(): Promise<void> {
    const { prefetch } = this.deps.settings;
    for (let failures = 0; !this.abort.signal.aborted;) {
      await this.roomFor(Math.ceil(prefetch / 2));
      if (this.abort.signal.aborted) return;
      let messages: PulledMessage[];
      try {
        messages = await this.fetch(prefetch - this.inFlight.size);
        if (failures > 0)
          this.deps.logger.log(`Fetching messages of ${this.listener.consumerId} works again after ${failures} failed tries`);
        failures = 0;
      } catch (error) {
        if (this.abort.signal.aborted) return;
        const delayMs = pullBackoffDelay(++failures);
        // Once per outage: the retries go on quietly until a fetch succeeds.
        if (failures === 1) {
          this.deps.logger.warn(
            `Fetching messages of ${this.listener.consumerId} failed; retrying with backoff (from ${delayMs} ms) until it works: ${(error as Error).message}`,
          );
        }
        await sleep(delayMs, this.abort.signal);
        continue;
      }
      for (const message of messages) this.track(this.handle(message));
    }
  }

  private fetch(max: number): Promise<PulledMessage[]> {
    const { waitMs, member, ackTimeoutMs } = this.deps.settings;
    const request = {
      max,
      waitMs,
      member,
      autoAck: this.listener.ackMode === 'none',
      ...(ackTimeoutMs === undefined ? {} : { ackTimeoutMs }),
    };
    return this.deps.client.fetch(this.listener.consumerId, request, this.abort.signal);
  }

  /** Resolves once `free` messages fit within the prefetch, or the loop stops. */
  private async roomFor(free: number): Promise<void> {
    while (this.deps.settings.prefetch - this.inFlight.size < free && !this.abort.signal.aborted) {
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private track(handling: Promise<void>): void {
    this.inFlight.add(handling);
    void handling.finally(() => {
      this.inFlight.delete(handling);
      this.wake?.();
    });
  }

  private async handle(message: PulledMessage): Promise<void> {
    if (message.lease !== undefined) this.keeper.hold(message.lease);
    try {
      const reply = await this.deps.handle(message);
      if (message.lease === undefined || this.listener.ackMode === 'none' || this.settledByHandler.has(message)) return;
      await this.settle(message, message.lease, reply);
    } catch (error) {
      // Shutdown came first, or outlasted the handler: not settled; the broker releases the lease (recover or expiry).
      if (error instanceof ConsumerClosingError || error instanceof HandlerAbandonedError) return;
      this.deps.logger.warn(
        `Settling message ${message.id} of ${this.listener.consumerId} failed; the broker delivers it again when its lease ends: ${(error as Error).message}`,
      );
    } finally {
      if (message.lease !== undefined) this.keeper.release(message.lease);
    }
  }

  /**
   * A `manual` handler's decision, sent at once (acks through the batcher): resolves once the broker holds it.
   * @throws LeaseLostError when the broker no longer held the lease
   */
  async settleNow(message: PulledMessage, lease: string, reply: ConsumerAcknowledgement): Promise<void> {
    this.settledByHandler.add(message);
    if (await this.send(lease, reply)) return;
    const kind = reply.acknowledgement === Acknowledgement.ACK ? 'ack' : reply.retry === false ? 'terminate' : 'nack';
    throw lostLease(this.listener.consumerId, lease, PAST[kind]);
  }

  private async settle(message: PulledMessage, lease: string, reply: ConsumerAcknowledgement): Promise<void> {
    if (reply.acknowledgement === Acknowledgement.ACK && this.listener.ackMode === 'dupsOk') {
      // dupsOk does not wait for its lazy ack: the message leaves the prefetch now, the ack follows in a batch.
      return void this.acks.add(lease).then(
        (ok) => this.reportLost(message, ok),
        (error) => this.reportFailed(message, error),
      );
    }
    this.reportLost(message, await this.send(lease, reply));
  }

  /** @returns false when the broker no longer held the lease */
  private async send(lease: string, reply: ConsumerAcknowledgement): Promise<boolean> {
    const { client } = this.deps;
    const { consumerId } = this.listener;
    if (reply.acknowledgement === Acknowledgement.ACK) return this.acks.add(lease);
    if (reply.retry === false) return !(await client.terminate(consumerId, [lease], reply.message)).lost.includes(lease);
    return !(await client.nack(consumerId, [lease], reply.delayMs)).lost.includes(lease);
  }

  private reportLost(message: PulledMessage, held: boolean): void {
    if (held) return;
    this.deps.logger.warn(
      `The lease of message ${message.id} of ${this.listener.consumerId} was lost before it was settled (it expired or ` +
        `went to another member); the broker delivers it again`,
    );
  }

  private reportFailed(message: PulledMessage, error: unknown): void {
    this.deps.logger.warn(
      `Acknowledging message ${message.id} of ${this.listener.consumerId} failed; the broker delivers it again when its lease ends: ${(error as Error)?.message}`,
    );
  }
}

import { Acknowledgement } from '@mmmq/core';
import type { Logger } from '@nestjs/common';
import { ConsumerClosingError } from '../errors/consumer-closing.error';
import { HandlerAbandonedError } from '../errors/handler-abandoned.error';
import type { FrontHandler } from '../handling/front-handler';
import type { ListenerInvoker } from '../handling/listener-invoker';
import type { ConsumerReply, SettlementChannel } from '../handling/settlement';
import type { ListenerDefinition } from '../listener/listener-definition';
import { AckBatcher, DUPS_OK_ACK_BATCH, DUPS_OK_ACK_LINGER_MS, MAX_ACKS_PER_REQUEST } from './ack-batcher';
import { leaseExtender, pulledSettlement, transactionCommitter } from './lease-channel';
import { pullBackoffDelay } from './pull-backoff';
import { sleep } from '@mmmq/core';
import type { PulledMessage, PullClient } from './pull-client';
import type { ResolvedPull } from './pull-options.resolver';

export interface PullLoopDeps {
  client: PullClient;
  frontHandler: FrontHandler;
  invoker: ListenerInvoker;
  settings: ResolvedPull;
  logger: Logger;
}

/**
 * Feeds one listener by fetching: long-polls the broker for up to what its prefetch leaves free (once at least
 * half is free), runs each message through the worker pool like a push, and settles it by its lease (acks
 * batched, see AckBatcher). Broker errors back off (250 ms doubling to 30 s), with one warning per outage. `stop()` ends fetching at once;
 * `drain()` then waits for the messages already fetched and sends the last acks.
 */
export class PullLoop {
  private readonly abort = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly acks: AckBatcher;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly listener: ListenerDefinition,
    private readonly deps: PullLoopDeps,
  ) {
    const lazy = listener.ackMode === 'dupsOk';
    this.acks = new AckBatcher((leases) => deps.client.ack(listener.consumerId, leases), {
      lingerMs: lazy ? DUPS_OK_ACK_LINGER_MS : 0,
      maxBatch: lazy ? DUPS_OK_ACK_BATCH : MAX_ACKS_PER_REQUEST,
    });
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
    const { frontHandler, invoker } = this.deps;
    const lane = { key: this.listener.consumerId, concurrency: this.listener.concurrency };
    try {
      // Bounded by the prefetch instead of queueSize: every fetched message waits for its turn.
      const outcome = await frontHandler.submit(lane, () => invoker.run(this.listener, message, this.channel(message)), { bounded: false });
      if (outcome.sent || message.lease === undefined || this.listener.ackMode === 'none') return;
      await this.settle(message, message.lease, outcome.reply);
    } catch (error) {
      // Shutdown came first, or outlasted the handler: not settled; the broker releases the lease (recover or expiry).
      if (error instanceof ConsumerClosingError || error instanceof HandlerAbandonedError) return;
      this.deps.logger.warn(
        `Settling message ${message.id} of ${this.listener.consumerId} failed; the broker delivers it again when its lease ends: ${(error as Error).message}`,
      );
    }
  }

  private channel(message: PulledMessage): SettlementChannel {
    const { client, settings } = this.deps;
    const { consumerId } = this.listener;
    if (message.lease === undefined) {
      const settled = "with ackMode 'none' the broker settled the message when it sent it";
      return { extendUnavailable: settled, commitUnavailable: settled };
    }
    if (this.listener.ackMode === 'manual') {
      return pulledSettlement(client, consumerId, message.lease, (lease) => this.acks.add(lease), settings.ackTimeoutMs);
    }
    return {
      extend: leaseExtender(client, consumerId, message.lease, settings.ackTimeoutMs),
      commit: transactionCommitter(client, consumerId, message.lease),
    };
  }

  private async settle(message: PulledMessage, lease: string, reply: ConsumerReply): Promise<void> {
    const { client } = this.deps;
    const { consumerId } = this.listener;
    let held: boolean;
    if (reply.acknowledgement === Acknowledgement.ACK) {
      const acked = this.acks.add(lease);
      // dupsOk does not wait for its lazy ack: the message leaves the prefetch now, the ack follows in a batch.
      if (this.listener.ackMode === 'dupsOk')
        return void acked.then(
          (ok) => this.reportLost(message, ok),
          (error) => this.reportFailed(message, error),
        );
      held = await acked;
    } else if (reply.retry === false) {
      held = !(await client.terminate(consumerId, [lease], reply.message)).lost.includes(lease);
    } else {
      held = !(await client.nack(consumerId, [lease], reply.delayMs)).lost.includes(lease);
    }
    this.reportLost(message, held);
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

import type { ChannelModel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import { backoffDelay, TransportHandler, TransportListener } from '@mmmq/core';
import type { DeclaredTopology } from './declared-topology';
import { deliveryOf, type ReceivedDelivery } from './delivery-mapping';
import { bindingKeyOf } from './pattern-binding';
import { DEFAULT_PREFETCH, type ResolvedRabbitMqOptions } from './rabbitmq-transport.options';
import { SettlementRouter } from './settlement-router';
import { bounded } from './shutdown-step';
import { declareListener, listenerNames, type ListenerNames } from './topology';

/** What a listener consumer tells its subscriber. */
export interface ListenerConsumerEvents {
  /** No new channel can be opened on the connection: the subscriber reconnects everything. */
  channelLost(model: ChannelModel): void;
  /** It started or stopped consuming ({@link ListenerConsumer.consuming}). */
  consumingChanged(): void;
}

/**
 * One listener on its quorum queue: a confirm channel per connection (its prefetch), each message handed
 * to the consumer's handler and its answer carried out by the {@link SettlementRouter}. A handler that rejects (the
 * consumer could not take the message) gets it back into the queue with `basic.nack` + requeue.
 */
export class ListenerConsumer {
  readonly names: ListenerNames;
  private readonly router: SettlementRouter;
  private channel: ConfirmChannel | undefined;
  private consumerTag: string | undefined;
  /** The channel it consumes on; unset from the moment that channel (or its connection) is lost. */
  private consumingOn: ConfirmChannel | undefined;
  /** Why its last channel closed, when RabbitMQ said (a channel closed with its connection has none). */
  private channelError: unknown;
  private receiving = true;
  /** Deliveries the consumer refused in a row, for the backoff of giving them back. */
  private refusals = 0;
  /** Channels reopened in a row, for their backoff. */
  private reopens = 0;
  private lastReopenAt = 0;
  /** Settlements under way (republish, confirm, ack): close() lets them finish. */
  private readonly settling = new Set<Promise<void>>();

  constructor(
    private readonly options: ResolvedRabbitMqOptions,
    readonly listener: TransportListener,
    private readonly handle: TransportHandler,
    private readonly events: ListenerConsumerEvents,
    private readonly declared: DeclaredTopology,
  ) {
    this.names = listenerNames(options, listener.consumerId);
    this.router = new SettlementRouter(options, listener.consumerId, this.names, declared);
  }

  /** True while RabbitMQ can hand it messages: its consumer is set up on a channel that is open. */
  get consuming(): boolean {
    return this.consumingOn !== undefined;
  }

  /** Why its last channel closed (RabbitMQ's error), or undefined when it gave none. */
  get lastChannelError(): unknown {
    return this.channelError;
  }

  /** Declares the listener's topology on a new channel of `model` and starts consuming; closes that channel if it fails. */
  async attach(model: ChannelModel): Promise<void> {
    if (!this.receiving) return;
    const channel = await model.createConfirmChannel();
    try {
      await this.consumeOn(model, channel);
    } catch (error) {
      if (this.channel === channel) this.channel = undefined;
      await channel.close().catch(() => undefined);
      throw error;
    }
  }

  private async consumeOn(model: ChannelModel, channel: ConfirmChannel): Promise<void> {
    channel.on('error', (error: unknown) => (this.channelError = error));
    channel.on('close', () => {
      this.stoppedConsuming(channel);
      if (this.channel !== channel) return;
      this.channel = undefined;
      this.reopen(model);
    });
    await declareListener(
      channel,
      this.options,
      this.names,
      bindingKeyOf(this.listener.pattern),
      this.listener.backlogLimit,
      this.declared,
    );
    await channel.prefetch(this.options.prefetch ?? Math.max(DEFAULT_PREFETCH, this.listener.concurrency));
    this.channel = channel;
    const { consumerTag } = await channel.consume(this.names.queue, (message) => {
      if (message !== null) return this.receive(channel, message);
      // RabbitMQ cancelled the consumer (its queue was deleted, or its node left): a new channel declares it again.
      if (this.channel !== channel) return;
      this.channel = undefined;
      this.channelError = new Error('RabbitMQ cancelled the consumer (its queue was deleted, or its node left)');
      this.stoppedConsuming(channel);
      void channel.close().catch(() => undefined);
      this.reopen(model);
    });
    this.consumerTag = consumerTag;
    if (this.receiving && this.channel === channel) {
      this.consumingOn = channel;
      this.channelError = undefined;
      this.events.consumingChanged();
    }
    // stopReceiving() came while this consumer was being set up: it could not cancel it then.
    if (!this.receiving) await bounded(channel.cancel(consumerTag));
  }

  /**
   * This listener's channel closed (a failed settlement, a cancelled consumer) or its connection did: a new channel
   * on the same connection, and only when that fails (the connection is gone) the subscriber reconnects everything.
   */
  private reopen(model: ChannelModel): void {
    if (!this.receiving) return;
    // Back off when channels keep failing (e.g. a settlement RabbitMQ refuses each time), as reconnections do.
    const now = Date.now();
    if (now - this.lastReopenAt > 2 * this.options.reconnect.maxMs) this.reopens = 0;
    this.lastReopenAt = now;
    const delayMs = this.reopens++ === 0 ? 0 : backoffDelay(this.reopens - 1, this.options.reconnect);
    setTimeout(() => {
      if (!this.receiving) return;
      this.attach(model).catch(() => {
        if (this.receiving) this.events.channelLost(model);
      });
    }, delayMs).unref();
  }

  /** No message is handed to the handler from now on; those arriving are given back to the queue. Idempotent. */
  async stopReceiving(): Promise<void> {
    if (!this.receiving) return;
    this.receiving = false;
    this.consumingOn = undefined;
    const { channel, consumerTag } = this;
    if (channel !== undefined && consumerTag !== undefined) await bounded(channel.cancel(consumerTag));
  }

  /**
   * Lets settlements under way finish (at most `confirmTimeoutMs`: their publishes time out then), then closes the
   * channel: RabbitMQ requeues whatever is unacknowledged.
   */
  async close(): Promise<void> {
    await this.stopReceiving();
    await bounded(Promise.allSettled([...this.settling]), this.options.confirmTimeoutMs);
    const channel = this.channel;
    this.channel = undefined;
    if (channel !== undefined) await bounded(channel.close());
  }

  private stoppedConsuming(channel: ConfirmChannel): void {
    if (this.consumingOn !== channel) return;
    this.consumingOn = undefined;
    this.events.consumingChanged();
  }

  private receive(channel: ConfirmChannel, message: ConsumeMessage): void {
    if (!this.receiving) return quietly(() => channel.nack(message, false, true));
    void this.process(channel, message);
  }

  private async process(channel: ConfirmChannel, message: ConsumeMessage): Promise<void> {
    let received: ReceivedDelivery;
    try {
      received = deliveryOf(message, this.options.retry.maxDeliveries);
    } catch (error) {
      return this.track(
        channel,
        this.router.deadLetter(channel, message, undefined, 'REJECTED', `Content is not JSON: ${(error as Error).message}`),
      );
    }
    const { expiresAt } = received.delivery;
    if (expiresAt !== undefined && expiresAt <= Date.now()) {
      // It expired while it waited in a retry queue (RabbitMQ drops the expiration when it dead-letters it back).
      return this.track(
        channel,
        this.router.deadLetter(channel, message, received, 'EXPIRED', 'Expired before it could be delivered again'),
      );
    }
    let answer;
    try {
      answer = await this.handle(received.delivery);
    } catch {
      // The consumer could not take it (its queue is full, it is stopping). Given back at once, RabbitMQ would send
      // it straight back: a spin that also spends the queue's x-delivery-limit. Held a while (it counts against the
      // prefetch, so nothing more comes meanwhile), with backoff while refusals go on.
      const delayMs = backoffDelay(++this.refusals, this.options.reconnect);
      setTimeout(() => quietly(() => channel.nack(message, false, true)), delayMs).unref();
      return;
    }
    this.refusals = 0;
    return this.track(channel, this.router.settle(channel, message, received, answer));
  }

  /** A failed settlement leaves the message unacknowledged: RabbitMQ delivers it again once the channel closes. */
  private track(channel: ConfirmChannel, settlement: Promise<void>): Promise<void> {
    // Without the ack, the message would sit unacknowledged on a live channel: drop the channel so it comes back.
    const tracked = settlement.catch(() => channel.close().catch(() => undefined));
    this.settling.add(tracked);
    void tracked.finally(() => this.settling.delete(tracked));
    return tracked;
  }
}

/** Acks and nacks on a channel that closed meanwhile throw; the message is requeued by RabbitMQ anyway. */
function quietly(settle: () => void): void {
  try {
    settle();
  } catch {
    // The channel is gone: RabbitMQ has requeued the message.
  }
}

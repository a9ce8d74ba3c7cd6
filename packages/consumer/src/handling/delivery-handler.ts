import { Acknowledgement, ConsumerAcknowledgement } from '@mmmq/core';
import { Injectable, Logger } from '@nestjs/common';
import type { ListenerDefinition } from '../listener/listener-definition';
import { ListenerRegistry } from '../listener/listener-registry';
import { ConsumerApi } from '../pull/consumer-api';
import { leaseExtender, transactionCommitter } from '../pull/lease-channel';
import type { ConsumerDelivery } from './consumer-delivery';
import { FrontHandler } from './front-handler';
import { ListenerInvoker } from './listener-invoker';
import type { ConsumerReply, SettlementChannel } from './settlement';

const ACK: ConsumerReply = { acknowledgement: Acknowledgement.ACK };

/**
 * Routes a pushed delivery to the listener its consumer id names, through the front handler's queue and workers.
 * A listener with ack mode `none` is answered ACK as soon as its delivery is accepted into the queue; the others
 * when their handler is done.
 */
@Injectable()
export class DeliveryHandler {
  private readonly logger = new Logger('MmmqConsumer');

  constructor(
    private readonly registry: ListenerRegistry,
    private readonly frontHandler: FrontHandler,
    private readonly invoker: ListenerInvoker,
    private readonly api: ConsumerApi,
  ) {}

  /**
   * @param bounded false when the sender bounds its deliveries itself, so one waits even if the queue is full (with
   *   ack mode `none`, it is acknowledged only once the queue has room for it)
   * @param channel how `context.transaction()` and `inProgress()` reach the sender, for one other than the MMMQ
   *   broker (a transport); absent: the broker's lease API, when it sent a lease
   * @throws DeliveryRefusedError (queue full, shutting down): the delivery was not handled and must be resent
   */
  handle(
    consumerId: string | undefined,
    delivery: ConsumerDelivery,
    { bounded = true, channel: given }: { bounded?: boolean; channel?: SettlementChannel } = {},
  ): Promise<ConsumerReply> {
    const listener = consumerId === undefined ? undefined : this.registry.find(consumerId);
    if (listener === undefined) return Promise.resolve(this.unknown(consumerId));
    const channel = given ?? this.channel(listener, delivery);
    const run = () => this.invoker.invoke(listener, delivery, channel);
    const lane = { key: listener.consumerId, concurrency: listener.concurrency };
    if (listener.ackMode !== 'none') return this.frontHandler.submit(lane, run, { bounded });
    if (!bounded) return this.acknowledgeWhenAccepted(listener, delivery, lane, run);
    try {
      this.frontHandler.accept(lane, run).catch((error: unknown) => this.dropped(listener, [delivery], error));
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.resolve(ACK);
  }

  /**
   * Ack mode `none` from a sender that bounds its deliveries itself: acknowledged once the queue takes it, so the
   * sender's bound (a transport's prefetch) also bounds what waits acknowledged and unhandled.
   */
  private async acknowledgeWhenAccepted(
    listener: ListenerDefinition,
    delivery: ConsumerDelivery,
    lane: { key: string; concurrency: number },
    run: () => Promise<ConsumerReply>,
  ): Promise<ConsumerReply> {
    const { outcome } = await this.frontHandler.acceptWhenRoom(lane, run);
    outcome.catch((error: unknown) => this.dropped(listener, [delivery], error));
    return ACK;
  }

  /**
   * A batched push: one queue entry for the whole batch, whose messages run one after another, so the batch
   * is accepted or refused as a unit and its order is kept.
   * @throws DeliveryRefusedError (queue full, shutting down): none of the batch was handled
   */
  async handleBatch(consumerId: string | undefined, deliveries: ConsumerDelivery[]): Promise<ConsumerReply[]> {
    const listener = consumerId === undefined ? undefined : this.registry.find(consumerId);
    if (listener === undefined) return deliveries.map(() => this.unknown(consumerId));
    const lane = { key: listener.consumerId, concurrency: listener.concurrency };
    const run = async () => {
      const replies: ConsumerReply[] = [];
      for (const delivery of deliveries) replies.push(await this.invoker.invoke(listener, delivery, this.channel(listener, delivery)));
      return replies;
    };
    if (listener.ackMode !== 'none') return this.frontHandler.submit(lane, run);
    this.frontHandler.accept(lane, run).catch((error: unknown) => this.dropped(listener, deliveries, error));
    return deliveries.map(() => ACK);
  }

  /**
   * `context.inProgress()` of a push extends its lease, and `context.transaction()` settles it, when the broker sent
   * one and `broker` is set. After a transaction the push's ACK reply finds the message settled: a no-op.
   */
  private channel(listener: ListenerDefinition, delivery: ConsumerDelivery): SettlementChannel {
    const client = this.api.client;
    const unavailable = (why: string): SettlementChannel => ({ extendUnavailable: why, commitUnavailable: why });
    if (client === undefined) return unavailable('the consumer option broker is not set, so the broker cannot be asked');
    if (delivery.lease === undefined) return unavailable('the broker sent no lease with this push (a broker without leases)');
    return {
      extend: leaseExtender(client, listener.consumerId, delivery.lease),
      commit: transactionCommitter(client, listener.consumerId, delivery.lease),
    };
  }

  /** Ack mode `none`: acknowledged on receipt, then not handled (shutdown came first). */
  private dropped(listener: ListenerDefinition, deliveries: ConsumerDelivery[], error: unknown): void {
    this.logger.warn(
      `${listener.where} did not handle ${deliveries.length} message(s) (${deliveries.map(({ id }) => id).join(', ')}) ` +
        `that ackMode 'none' had acknowledged on receipt; they are lost: ${(error as Error)?.message ?? String(error)}`,
    );
  }

  private unknown(consumerId: string | undefined): ConsumerAcknowledgement {
    return {
      acknowledgement: Acknowledgement.NACK,
      message:
        `No listener of this application has consumer id ${JSON.stringify(consumerId ?? null)} (known: ` +
        `${
          this.registry
            .all()
            .map((known) => known.consumerId)
            .join(', ') || 'none'
        }); the broker will retry ` +
        `and then dead-letter the message`,
    };
  }
}

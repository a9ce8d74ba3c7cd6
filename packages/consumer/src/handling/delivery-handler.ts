import { Acknowledgement, type TransportDelivery, type TransportOverflow } from '@mmmq/core';
import { Injectable, Logger } from '@nestjs/common';
import type { ListenerDefinition } from '../listener/listener-definition';
import { FrontHandler } from './front-handler';
import { ListenerInvoker } from './listener-invoker';
import type { ConsumerReply, SettlementChannel } from '../listener/settlement';

const ACK: ConsumerReply = { acknowledgement: Acknowledgement.ACK };

/**
 * Runs a listener's deliveries, whatever transport handed them over, through the front handler's queue and workers.
 * A listener with ack mode `none` is answered ACK as soon as its delivery is accepted into the queue; the others
 * when their handler is done.
 */
@Injectable()
export class DeliveryHandler {
  private readonly logger = new Logger('MmmqConsumer');

  constructor(
    private readonly frontHandler: FrontHandler,
    private readonly invoker: ListenerInvoker,
  ) {}

  /**
   * @param overflow `refuse` when the transport sends without bounding what waits, so a delivery the queue has no
   *   room for is refused; `wait` when it bounds its deliveries itself (a prefetch), so one waits even if the queue
   *   is full (with ack mode `none`, it is acknowledged only once the queue has room for it)
   * @param channel how `context.transaction()`, `inProgress()` and a `manual` decision reach the transport
   * @throws DeliveryRefusedError (queue full, shutting down): the delivery was not handled and must be resent
   */
  handle(
    listener: ListenerDefinition,
    delivery: TransportDelivery,
    overflow: TransportOverflow,
    channel: SettlementChannel,
  ): Promise<ConsumerReply> {
    const lane = { key: listener.consumerId, concurrency: listener.concurrency };
    const bounded = overflow === 'refuse';
    if (listener.ackMode === 'manual') {
      return this.frontHandler.submit(lane, (release) => this.invoker.invoke(listener, delivery, releasingOnDecision(channel, release)), {
        bounded,
      });
    }
    const run = () => this.invoker.invoke(listener, delivery, channel);
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
    delivery: TransportDelivery,
    lane: { key: string; concurrency: number },
    run: () => Promise<ConsumerReply>,
  ): Promise<ConsumerReply> {
    const { outcome } = await this.frontHandler.acceptWhenRoom(lane, run);
    outcome.catch((error: unknown) => this.dropped(listener, [delivery], error));
    return ACK;
  }

  /**
   * Deliveries handed over together (a batched push): one queue entry for the whole batch, whose messages run one
   * after another, so the batch is accepted or refused as a unit and its order is kept. `onSettled` hears each reply as
   * its handler finishes (a streamed reply settles it at once, so a crash re-runs only the handler running then).
   * @param carriesReplies the sender relays a request's reply carried in its acknowledgement: none is sent apart
   *   (not with ack mode `none`, whose acknowledgements go before the handlers run)
   * @throws DeliveryRefusedError (queue full, shutting down): none of the batch was handled
   */
  async handleBatch(
    listener: ListenerDefinition,
    deliveries: TransportDelivery[],
    channelOf: (delivery: TransportDelivery) => SettlementChannel,
    onSettled?: (index: number, reply: ConsumerReply) => void,
    carriesReplies = false,
  ): Promise<ConsumerReply[]> {
    const lane = { key: listener.consumerId, concurrency: listener.concurrency };
    const carry = carriesReplies && listener.ackMode !== 'none';
    // The handlers run one after another; a request's reply travels while the next one runs.
    const run = async () => {
      const replies: Promise<ConsumerReply>[] = [];
      for (const [index, delivery] of deliveries.entries()) {
        const { reply } = await this.invoker.invokeReplyingLater(listener, delivery, channelOf(delivery), carry);
        replies.push(reply.then((settled) => (onSettled?.(index, settled), settled)));
      }
      return Promise.all(replies);
    };
    if (listener.ackMode !== 'none') return this.frontHandler.submit(lane, run);
    this.frontHandler.accept(lane, run).catch((error: unknown) => this.dropped(listener, deliveries, error));
    return deliveries.map(() => ACK);
  }

  /** Ack mode `none`: acknowledged on receipt, then not handled (shutdown came first). */
  private dropped(listener: ListenerDefinition, deliveries: TransportDelivery[], error: unknown): void {
    this.logger.warn(
      `${listener.where} did not handle ${deliveries.length} message(s) (${deliveries.map(({ id }) => id).join(', ')}) ` +
        `that ackMode 'none' had acknowledged on receipt; they are lost: ${(error as Error)?.message ?? String(error)}`,
    );
  }
}

/**
 * A `manual` handler's decision sent before it returns (pull) frees its worker and lane slot at once, as an auto
 * ack's handler frees it by returning: the next message starts while the decision waits to be durable, so the acks of
 * that moment share one request (AckBatcher) instead of one request — and one fsync — each. The handler's `ack()`
 * still resolves only once the broker holds it durably.
 */
function releasingOnDecision(channel: SettlementChannel, release: () => void): SettlementChannel {
  const settle = channel.settle;
  if (settle === undefined) return channel;
  return {
    ...channel,
    settle: (decision) => {
      release();
      return settle(decision);
    },
  };
}

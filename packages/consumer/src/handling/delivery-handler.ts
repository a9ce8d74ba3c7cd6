import { Acknowledgement, ConsumerAcknowledgement, DeliveryRequest } from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import { ListenerRegistry } from '../listener/listener-registry';
import { FrontHandler } from './front-handler';
import { ListenerInvoker } from './listener-invoker';

/** Routes a delivery to the listener its consumer id names, through the front handler's queue and workers. */
@Injectable()
export class DeliveryHandler {
  constructor(
    private readonly registry: ListenerRegistry,
    private readonly frontHandler: FrontHandler,
    private readonly invoker: ListenerInvoker,
  ) {}

  /**
   * @param bounded false when the sender cannot back off, so the delivery waits even if the queue is full
   * @throws DeliveryRefusedError (queue full, shutting down): the delivery was not handled and must be resent
   */
  handle(consumerId: string | undefined, delivery: DeliveryRequest, { bounded = true } = {}): Promise<ConsumerAcknowledgement> {
    const listener = consumerId === undefined ? undefined : this.registry.find(consumerId);
    if (listener === undefined) return Promise.resolve(this.unknown(consumerId));
    return this.frontHandler.submit(
      { key: listener.consumerId, concurrency: listener.concurrency },
      () => this.invoker.invoke(listener, delivery),
      { bounded },
    );
  }

  /**
   * A batched push: one queue entry for the whole batch, whose messages run one after another, so the batch
   * is accepted or refused as a unit and its order is kept.
   * @throws DeliveryRefusedError (queue full, shutting down): none of the batch was handled
   */
  async handleBatch(consumerId: string | undefined, deliveries: DeliveryRequest[]): Promise<ConsumerAcknowledgement[]> {
    const listener = consumerId === undefined ? undefined : this.registry.find(consumerId);
    if (listener === undefined) return deliveries.map(() => this.unknown(consumerId));
    return this.frontHandler.submit({ key: listener.consumerId, concurrency: listener.concurrency }, async () => {
      const acknowledgements: ConsumerAcknowledgement[] = [];
      for (const delivery of deliveries) acknowledgements.push(await this.invoker.invoke(listener, delivery));
      return acknowledgements;
    });
  }

  private unknown(consumerId: string | undefined): ConsumerAcknowledgement {
    return {
      acknowledgement: Acknowledgement.NACK,
      message:
        `No listener of this application has consumer id ${JSON.stringify(consumerId ?? null)} (known: ` +
        `${this.registry.all().map((known) => known.consumerId).join(', ') || 'none'}); the broker will retry ` +
        `and then dead-letter the message`,
    };
  }
}

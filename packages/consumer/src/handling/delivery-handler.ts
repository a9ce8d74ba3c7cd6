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
    if (listener === undefined) {
      return Promise.resolve({
        acknowledgement: Acknowledgement.NACK,
        message:
          `No listener of this application has consumer id ${JSON.stringify(consumerId ?? null)} (known: ` +
          `${this.registry.all().map((known) => known.consumerId).join(', ') || 'none'}); the broker will retry ` +
          `and then dead-letter the message`,
      });
    }
    return this.frontHandler.submit(
      { key: listener.consumerId, concurrency: listener.concurrency },
      () => this.invoker.invoke(listener, delivery),
      { bounded },
    );
  }
}

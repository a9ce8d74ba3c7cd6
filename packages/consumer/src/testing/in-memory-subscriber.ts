import { Acknowledgement, ConsumerAcknowledgement, PublishedMessage, PublishRequest } from '@mmmq/core';
import { InMemoryBroker } from '@mmmq/core/testing';
import { Injectable } from '@nestjs/common';
import { DeliveryRefusedError } from '../errors/delivery-refused.error';
import { DeliveryHandler } from '../handling/delivery-handler';
import type { ListenerDefinition } from '../listener/listener-definition';

/**
 * Connects the listeners to an `InMemoryBroker` (from `MmmqTestingModule`) instead of a real broker: the same
 * conversion, validation, ordering and acknowledgement rules, without HTTP.
 */
@Injectable()
export class InMemorySubscriber {
  constructor(private readonly deliveries: DeliveryHandler) {}

  subscribeAll(broker: InMemoryBroker, listeners: readonly ListenerDefinition[]): void {
    for (const listener of listeners) {
      broker.subscribe(listener.consumerId, listener.pattern.value, (delivery) =>
        // The in-memory broker cannot back off, so deliveries wait for a worker however long the queue is.
        this.deliveries.handle(listener.consumerId, delivery, { bounded: false, commit: transactionsOn(broker) }).catch(refusal),
      );
    }
  }
}

/**
 * `context.transaction()` in memory: the outputs are published as one batch when it commits; the message is settled
 * by the ACK its handler's return sends (nothing can crash in between).
 */
function transactionsOn(broker: InMemoryBroker): (messages: PublishRequest[]) => Promise<PublishedMessage[]> {
  return async (messages) =>
    broker.publishBatch(messages.map(({ topic, ...rest }) => ({ ...rest, topic: typeof topic === 'string' ? topic : topic.name })));
}

function refusal(error: unknown): ConsumerAcknowledgement {
  if (!(error instanceof DeliveryRefusedError)) throw error;
  return { acknowledgement: Acknowledgement.NACK, message: error.message };
}

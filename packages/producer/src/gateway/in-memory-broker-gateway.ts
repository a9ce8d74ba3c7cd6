import { MmmqValidationError, PublishedMessage } from '@mmmq/core';
import { InMemoryBroker, InMemoryPublishRequest } from '@mmmq/core/testing';
import { HttpStatus } from '@nestjs/common';
import { BrokerResponseError } from '../errors/broker-response.error';
import type { OutgoingMessage } from '../outgoing-message';
import { BrokerGateway } from './broker-gateway';

/** Publishes to the `InMemoryBroker` of `MmmqTestingModule`, refusing what the real broker would refuse with 400. */
export class InMemoryBrokerGateway extends BrokerGateway {
  constructor(private readonly broker: InMemoryBroker) {
    super();
  }

  async publish(message: OutgoingMessage): Promise<PublishedMessage> {
    return this.refuseInvalid(() => this.broker.publish(toRequest(message)));
  }

  async publishBatch(messages: readonly OutgoingMessage[]): Promise<PublishedMessage[]> {
    return this.refuseInvalid(() => this.broker.publishBatch(messages.map(toRequest)));
  }

  async close(): Promise<void> {
    // Nothing to release: the broker belongs to MmmqTestingModule, and tests inspect it after the app closes.
  }

  private refuseInvalid<T>(publish: () => T): T {
    try {
      return publish();
    } catch (error) {
      if (!(error instanceof MmmqValidationError)) throw error;
      throw new BrokerResponseError(
        `The in-memory broker refused the message: ${error.message}`,
        { status: HttpStatus.BAD_REQUEST, reason: error.message },
        { cause: error },
      );
    }
  }
}

function toRequest(message: OutgoingMessage): InMemoryPublishRequest {
  return {
    topic: message.topic,
    id: message.id,
    headers: message.headers,
    ...(message.ttlMs === undefined ? {} : { ttlMs: message.ttlMs }),
    ...(message.expiresAt === undefined ? {} : { expiresAt: message.expiresAt }),
    ...(message.priority === undefined ? {} : { priority: message.priority }),
    content: JSON.parse(message.content),
    deliveryMode: message.deliveryMode,
  };
}

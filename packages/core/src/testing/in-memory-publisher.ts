import type { PublishedMessage } from '../wire';
import type { TransportPublisher } from '../transport/transport';
import type { TransportMessage } from '../transport/transport-message';
import type { InMemoryBroker, InMemoryPublishRequest } from './in-memory-broker';

/**
 * Publishes to an `InMemoryBroker`. It validates as the real broker does and throws the `MmmqValidationError` naming
 * the problem, which the producer reports as the real broker's 400: refused, not retried. A publish's abort signal
 * is ignored: the message is handed to the broker at once, before the caller could give up.
 */
export class InMemoryPublisher implements TransportPublisher {
  constructor(private readonly broker: InMemoryBroker) {}

  async publish(message: TransportMessage): Promise<PublishedMessage> {
    return this.broker.publish(toRequest(message));
  }

  async publishBatch(messages: readonly TransportMessage[]): Promise<PublishedMessage[]> {
    return this.broker.publishBatch(messages.map(toRequest));
  }

  async close(): Promise<void> {
    // Nothing to release: the broker belongs to the test, which inspects it after the application closed.
  }
}

function toRequest(message: TransportMessage): InMemoryPublishRequest {
  return {
    topic: message.topic,
    id: message.id,
    ...(message.headers === undefined ? {} : { headers: message.headers }),
    ...(message.ttlMs === undefined ? {} : { ttlMs: message.ttlMs }),
    ...(message.expiresAt === undefined ? {} : { expiresAt: message.expiresAt }),
    ...(message.priority === undefined ? {} : { priority: message.priority }),
    // Passed on to be refused: the in-memory broker does not schedule.
    ...(message.delayMs === undefined ? {} : { delayMs: message.delayMs }),
    ...(message.deliverAt === undefined ? {} : { deliverAt: message.deliverAt }),
    content: JSON.parse(message.content),
    ...(message.deliveryMode === undefined ? {} : { deliveryMode: message.deliveryMode }),
  };
}

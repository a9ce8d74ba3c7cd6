import { Acknowledgement, ConsumerAcknowledgement } from '../acknowledgement';
import type { TransactionalSubscriber } from '../transport/transactional-subscriber';
import type { TransportDelivery, TransportHandler, TransportListener } from '../transport/transport';
import type { PublishedMessage, PublishRequest } from '../wire';
import type { InMemoryBroker } from './in-memory-broker';

/**
 * Subscribes a consumer's listeners to an `InMemoryBroker`. The broker cannot hold a message back, so a delivery the
 * consumer does not take (it is shutting down, or has stopped receiving) counts there as a NACKed attempt.
 */
export class InMemoryTransportSubscriber implements TransactionalSubscriber {
  private receiving = true;

  constructor(private readonly broker: InMemoryBroker) {}

  async subscribe(listener: TransportListener, handle: TransportHandler): Promise<void> {
    this.broker.subscribe(listener.consumerId, listener.pattern, (delivery) => this.deliver(delivery, handle));
  }

  /** `context.transaction()`: the outputs are one batch; the handler's ACK settles the delivery right after. */
  async commitTransaction(
    _listener: TransportListener,
    _delivery: TransportDelivery,
    outputs: readonly PublishRequest[],
  ): Promise<PublishedMessage[]> {
    return this.broker.publishBatch(
      outputs.map(({ topic, ...rest }) => ({ ...rest, topic: typeof topic === 'string' ? topic : topic.name })),
    );
  }

  async stopReceiving(): Promise<void> {
    this.receiving = false;
  }

  async close(): Promise<void> {
    this.receiving = false;
    // The broker belongs to the test, which inspects it after the application closed: nothing to release.
  }

  private async deliver(delivery: TransportDelivery, handle: TransportHandler): Promise<ConsumerAcknowledgement> {
    if (!this.receiving) return notTaken('the consumer stopped receiving');
    return handle(delivery).catch((error: unknown) => notTaken(error instanceof Error ? error.message : String(error)));
  }
}

function notTaken(why: string): ConsumerAcknowledgement {
  return { acknowledgement: Acknowledgement.NACK, message: why };
}

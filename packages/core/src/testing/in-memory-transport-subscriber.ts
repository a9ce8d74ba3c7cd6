import { Acknowledgement, type ConsumerAcknowledgement } from '../acknowledgement';
import type { TransactionalSubscriber } from '../transport/transactional-subscriber';
import type { TransportDelivery, TransportHandler, TransportListener } from '../transport/transport';
import type { PublishedMessage, PublishRequest } from '../wire';
import { type InMemoryBroker, NOT_TAKEN } from './in-memory-broker';

/**
 * Subscribes a consumer's listeners to an `InMemoryBroker`, as members of their consumer ids' subscriptions. A
 * delivery the consumer does not take (it is shutting down, or has stopped receiving) is answered `NOT_TAKEN`: not
 * counted, and kept for the next member; stopping takes the listeners out of their subscriptions.
 */
export class InMemoryTransportSubscriber implements TransactionalSubscriber {
  private receiving = true;
  private readonly leaving: Array<() => void> = [];

  constructor(private readonly broker: InMemoryBroker) {}

  async subscribe(listener: TransportListener, handle: TransportHandler): Promise<void> {
    this.leaving.push(this.broker.subscribe(listener.consumerId, listener.pattern, (delivery) => this.deliver(delivery, handle)));
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
    for (const leave of this.leaving.splice(0)) leave();
  }

  async close(): Promise<void> {
    // The broker belongs to the test, which inspects it after the application closed: nothing else to release.
    await this.stopReceiving();
  }

  /**
   * A rejection is the consumer not taking the delivery: once it stopped receiving, the message waits for the next
   * member; before (it cannot hold the message back), it counts as a NACKed attempt, as it always did.
   */
  private async deliver(delivery: TransportDelivery, handle: TransportHandler): Promise<ConsumerAcknowledgement | typeof NOT_TAKEN> {
    if (!this.receiving) return NOT_TAKEN;
    return handle(delivery).catch((error: unknown) =>
      this.receiving
        ? { acknowledgement: Acknowledgement.NACK, message: error instanceof Error ? error.message : String(error) }
        : NOT_TAKEN,
    );
  }
}

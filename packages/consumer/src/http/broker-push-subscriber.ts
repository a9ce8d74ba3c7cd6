import type {
  LeasingSubscriber,
  PublishedMessage,
  PublishRequest,
  TransactionalSubscriber,
  TransportBatchHandler,
  TransportDelivery,
  TransportHandler,
  TransportListener,
} from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import { ConsumerClosingError } from '../errors/consumer-closing.error';
import { InvalidListenerError } from '../errors/invalid-listener.error';
import type { ConsumerDelivery } from '../listener/consumer-delivery';
import { ListenerRegistry } from '../listener/listener-registry';
import { ConsumerApi } from '../pull/consumer-api';
import { commitWithLease, extendLease } from '../pull/lease-channel';
import { DispatcherRegistrar } from '../registration/dispatcher-registrar';

/** What a listener's pushes are handed to. */
export interface PushHandlers {
  handle: TransportHandler;
  handleBatch: TransportBatchHandler;
}

/**
 * The MMMQ broker's push side as a subscriber (`delivery: 'push'`): subscribing a listener registers its dispatcher
 * with this application's `advertisedUrl` (DispatcherRegistrar), and PushReceiver hands it the pushes the broker then
 * sends (`POST /mmmq/messages`, one; `/mmmq/messages/batch`, a unit). The broker sends without a prefetch and sends a
 * refused push again later (503), so a push the worker queue has no room for is refused (`overflow: 'refuse'`). A push
 * carries a lease, which `context.inProgress()` extends and `context.transaction()` settles, through the broker's
 * consumer API (the `broker` option); its decision travels back in the push's answer (no `settleNow`). Closing takes this host out of
 * the dispatchers it joined.
 */
@Injectable()
export class BrokerPushSubscriber implements LeasingSubscriber, TransactionalSubscriber {
  readonly overflow = 'refuse';
  private readonly handlers = new Map<string, PushHandlers>();
  private receiving = true;

  constructor(
    private readonly registry: ListenerRegistry,
    private readonly registrar: DispatcherRegistrar,
    private readonly api: ConsumerApi,
  ) {}

  /** Takes the listener's pushes from now on; resolves once the broker holds its dispatcher. */
  async subscribe(listener: TransportListener, handle: TransportHandler, handleBatch?: TransportBatchHandler): Promise<void> {
    const definition = this.registry.find(listener.consumerId);
    if (definition === undefined || handleBatch === undefined) {
      throw new InvalidListenerError(`${listener.consumerId} is no listener of this consumer, or has no batch handler; nothing to push to`);
    }
    this.handlers.set(listener.consumerId, { handle, handleBatch });
    await this.registrar.register(definition);
  }

  /**
   * The handlers of a push for `consumerId`: undefined when no listener subscribed under it.
   * @throws ConsumerClosingError once the subscriber stopped receiving (answered 503: the broker sends it again)
   */
  handlersOf(consumerId: string | undefined): PushHandlers | undefined {
    if (!this.receiving) {
      throw new ConsumerClosingError('The consumer is shutting down and accepts no new message; the broker will redeliver it');
    }
    return consumerId === undefined ? undefined : this.handlers.get(consumerId);
  }

  /** Consumer ids subscribed, for an answer to a push that names none of them. */
  subscribed(): string[] {
    return [...this.handlers.keys()];
  }

  async stopReceiving(): Promise<void> {
    this.receiving = false;
  }

  /** Takes this host out of the dispatchers it joined (see DispatcherRegistrar.leaveAll). */
  async close(): Promise<void> {
    await this.registrar.leaveAll();
  }

  leaseUnavailable(_listener: TransportListener, delivery: TransportDelivery): string | undefined {
    if (this.api.client === undefined) return 'the consumer option broker is not set, so the broker cannot be asked';
    if (leaseOf(delivery) === undefined) return 'the broker sent no lease with this push (a broker without leases)';
    return undefined;
  }

  extendLease(listener: TransportListener, delivery: TransportDelivery): Promise<void> {
    return extendLease(this.api.client!, listener.consumerId, leaseOf(delivery)!);
  }

  /** After the commit, the push's ACK answer finds the message settled: a no-op. */
  commitTransaction(
    listener: TransportListener,
    delivery: TransportDelivery,
    outputs: readonly PublishRequest[],
  ): Promise<PublishedMessage[]> {
    return commitWithLease(this.api.client!, listener.consumerId, leaseOf(delivery)!, outputs);
  }
}

/** The lease the broker sent with one of this subscriber's pushes. */
function leaseOf(delivery: TransportDelivery): string | undefined {
  return (delivery as ConsumerDelivery).lease;
}

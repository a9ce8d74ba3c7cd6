import type {
  ConsumerAcknowledgement,
  LeasingSubscriber,
  PublishedMessage,
  PublishRequest,
  TransactionalSubscriber,
  TransportDelivery,
  TransportHandler,
  TransportListener,
} from '@mmmq/core';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InvalidListenerError } from '../errors/invalid-listener.error';
import { ListenerRegistry } from '../listener/listener-registry';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, ResolvedConsumerOptions } from '../config/resolved-consumer-options';
import { DispatcherRegistrar } from '../registration/dispatcher-registrar';
import { ConsumerApi } from './consumer-api';
import { commitWithLease, extendLease } from './lease-channel';
import type { PulledMessage } from './pull-client';
import { PullLoop } from './pull-loop';

/**
 * The MMMQ broker's pull side as a subscriber (`delivery: 'pull'`): subscribing a listener registers its dispatcher
 * (without a host), then one PullLoop fetches its messages within the prefetch (which bounds them: `overflow: 'wait'`)
 * and settles each by its lease. Leases: `context.inProgress()` extends one, `context.transaction()` commits against
 * one, and a `manual` decision is sent at once (`settleNow`), so `await context.ack()` means settled. Shutdown in two
 * steps around the worker pool's drain: `stopReceiving()` ends fetching; `close()` waits for the fetched messages,
 * sends the last acks, asks the broker (`recover`) to redeliver at once whatever this member still holds unsettled,
 * and leaves the dispatchers.
 */
@Injectable()
export class BrokerPullSubscriber implements LeasingSubscriber, TransactionalSubscriber {
  private readonly logger = new Logger('MmmqConsumer');
  private readonly loops = new Map<string, { listener: TransportListener; loop: PullLoop }>();
  /** Background registration may still subscribe during shutdown. */
  private stopped = false;
  private closed: Promise<void> | undefined;

  constructor(
    @Inject(MMMQ_CONSUMER_RESOLVED_OPTIONS) private readonly options: ResolvedConsumerOptions,
    private readonly registry: ListenerRegistry,
    private readonly registrar: DispatcherRegistrar,
    private readonly api: ConsumerApi,
  ) {}

  /** Registers the listener's dispatcher, then starts fetching for it (not once stopping has begun). */
  async subscribe(listener: TransportListener, handle: TransportHandler): Promise<void> {
    const settings = this.options.pull;
    const client = this.api.client;
    const definition = this.registry.find(listener.consumerId);
    if (settings === undefined || client === undefined || definition === undefined) {
      throw new InvalidListenerError(`${listener.consumerId} cannot pull: no listener of this consumer, or no broker and pull settings`);
    }
    // A loop fetches once its dispatcher exists; before, the broker would only answer 404.
    await this.registrar.register(definition);
    if (this.stopped) return;
    const loop = new PullLoop(listener, { client, handle, settings, logger: this.logger });
    this.loops.set(listener.consumerId, { listener, loop });
    loop.start();
    this.logger.log(
      `Pulling ${listener.consumerId} as member ${settings.member} (prefetch ${settings.prefetch}, ackMode ${listener.ackMode})`,
    );
  }

  async stopReceiving(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.loops.values()].map(({ loop }) => loop.stop()));
  }

  /** Idempotent. */
  close(): Promise<void> {
    this.closed ??= this.finish();
    return this.closed;
  }

  private async finish(): Promise<void> {
    this.stopped = true;
    const client = this.api.client;
    const member = this.options.pull?.member;
    await Promise.all(
      [...this.loops.values()].map(async ({ listener, loop }) => {
        await loop.stop();
        await loop.drain();
        if (client === undefined || member === undefined || listener.ackMode === 'none') return;
        try {
          // Leaving too: with maxActiveMembers, a backup takes this member's place now rather than after a lease period.
          const released = await client.recover(listener.consumerId, member, true);
          if (released > 0) this.logger.log(`Released ${released} unsettled message(s) of ${listener.consumerId} for redelivery`);
        } catch (error) {
          this.logger.warn(
            `Could not release the unsettled messages of ${listener.consumerId}; the broker redelivers them when their leases end: ${(error as Error).message}`,
          );
        }
      }),
    );
    await this.registrar.leaveAll();
  }

  leaseUnavailable(_listener: TransportListener, delivery: TransportDelivery): string | undefined {
    return leaseOf(delivery) === undefined ? "with ackMode 'none' the broker settled the message when it sent it" : undefined;
  }

  extendLease(listener: TransportListener, delivery: TransportDelivery): Promise<void> {
    return extendLease(this.api.client!, listener.consumerId, leaseOf(delivery)!, this.options.pull?.ackTimeoutMs);
  }

  commitTransaction(
    listener: TransportListener,
    delivery: TransportDelivery,
    outputs: readonly PublishRequest[],
  ): Promise<PublishedMessage[]> {
    return commitWithLease(this.api.client!, listener.consumerId, leaseOf(delivery)!, outputs);
  }

  /** A `manual` decision goes to the broker at once (an ack through the listener's batcher). */
  settleNow(listener: TransportListener, delivery: TransportDelivery, acknowledgement: ConsumerAcknowledgement): Promise<void> {
    const loop = this.loops.get(listener.consumerId)!.loop;
    return loop.settleNow(delivery as PulledMessage, leaseOf(delivery)!, acknowledgement);
  }
}

/** The lease the broker gave one of this subscriber's fetched messages. */
function leaseOf(delivery: TransportDelivery): string | undefined {
  return (delivery as PulledMessage).lease;
}

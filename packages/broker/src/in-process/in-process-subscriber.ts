import { randomUUID } from 'node:crypto';
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
import { Logger } from '@nestjs/common';
import type { Dispatcher } from '../dispatch/dispatcher';
import type { DispatcherRegistry } from '../dispatch/dispatcher-registry';
import { leaseToken } from '../dispatch/ledger/lease-token';
import type { SubscriptionContainer } from '../dispatch/subscription-container';
import type { SubscriptionArrivals } from '../dispatch/subscription-arrivals';
import type { PublishRequestParser } from '../publish/publish-request.parser';
import type { TransactionService } from '../transactions/transaction.service';
import { ensureInProcessDispatcher } from './in-process-dispatcher';
import { InProcessMember } from './in-process-member';
import { InProcessLeaseLostError } from './in-process.errors';

/** The parts of the broker an in-process subscriber works with. */
export interface InProcessBrokerParts {
  dispatcher: Dispatcher;
  registry: DispatcherRegistry;
  subscriptions: SubscriptionContainer;
  arrivals: SubscriptionArrivals;
  transactions: TransactionService;
  parser: PublishRequestParser;
}

/**
 * The broker's subscriber for the listeners of its own application: subscribing a listener registers its
 * dispatcher (without a host, as a pull consumer does) and starts an {@link InProcessMember} for it. Leases:
 * `context.inProgress()` extends one, `context.transaction()` commits against one (TransactionService, as
 * `POST /mmmq/transactions`), and a `manual` decision settles at once. One member id per subscriber
 * (`in-process:<uuid>`), which an `exclusive` dispatcher's roster sees as a pull member.
 */
export class InProcessSubscriber implements LeasingSubscriber, TransactionalSubscriber {
  private readonly logger = new Logger('MmmqBroker');
  private readonly id = `in-process:${randomUUID()}`;
  private readonly members = new Map<string, InProcessMember>();
  private stopped = false;
  private closing: Promise<void> | undefined;

  constructor(private readonly broker: InProcessBrokerParts) {}

  async subscribe(listener: TransportListener, handle: TransportHandler): Promise<void> {
    await ensureInProcessDispatcher(this.broker.dispatcher, listener, this.logger);
    if (this.stopped) return;
    const { subscriptions, arrivals, registry } = this.broker;
    const member = new InProcessMember(listener, this.id, { subscriptions, arrivals, registry, handle, logger: this.logger });
    this.members.set(listener.consumerId, member);
    member.start();
  }

  async stopReceiving(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.members.values()].map((member) => member.stop()));
  }

  /** Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.stopReceiving().then(() =>
      Promise.all([...this.members.values()].map((member) => member.drain())).then(() => {}),
    );
    return this.closing;
  }

  leaseUnavailable(listener: TransportListener): string | undefined {
    return listener.ackMode === 'none' ? "with ackMode 'none' the broker settled the message when it handed it over" : undefined;
  }

  async extendLease(listener: TransportListener, delivery: TransportDelivery): Promise<void> {
    this.memberOf(listener).extend(delivery);
  }

  settleNow(listener: TransportListener, delivery: TransportDelivery, acknowledgement: ConsumerAcknowledgement): Promise<void> {
    return this.memberOf(listener).settleNow(delivery, acknowledgement);
  }

  async commitTransaction(
    listener: TransportListener,
    delivery: TransportDelivery,
    outputs: readonly PublishRequest[],
  ): Promise<PublishedMessage[]> {
    const held = this.memberOf(listener).heldAs(delivery);
    if (held === undefined) throw new InProcessLeaseLostError(`${delivery.topic}@${delivery.offset} is not held by this listener`);
    const { slot, delivery: number } = held;
    const messages = outputs.length === 0 ? [] : this.broker.parser.parseBatch(Buffer.from(JSON.stringify({ messages: outputs })));
    const lease = leaseToken(delivery.topic, slot.offset, number);
    const { messages: published } = await this.broker.transactions.commit({
      consumerId: listener.consumerId,
      inputs: [{ topic: delivery.topic, offset: slot.offset, delivery: number, lease }],
      messages,
    });
    return published;
  }

  private memberOf(listener: TransportListener): InProcessMember {
    const member = this.members.get(listener.consumerId);
    if (member === undefined) throw new InProcessLeaseLostError(`${listener.consumerId} is not subscribed in process`);
    return member;
  }
}

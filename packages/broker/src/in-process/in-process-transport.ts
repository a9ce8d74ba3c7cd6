import {
  IN_PROCESS_TRANSPORT_NAME,
  InProcessBrokerTransport,
  type Reply,
  type TransportPublisher,
  type TransportSubscriber,
} from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import { Dispatcher } from '../dispatch/dispatcher';
import { DispatcherRegistry } from '../dispatch/dispatcher-registry';
import { SubscriptionContainer } from '../dispatch/subscription-container';
import { SubscriptionArrivals } from '../dispatch/subscription-arrivals';
import { PublishIntake } from '../publish/publish-intake';
import { ReplyRelay } from '../replies/reply-relay';
import { PublishRequestParser } from '../publish/publish-request.parser';
import { TransactionService } from '../transactions/transaction.service';
import { ScheduledCanceller } from '../publish/scheduled-canceller';
import { InProcessPublisher } from './in-process-publisher';
import { InProcessSubscriber } from './in-process-subscriber';

/**
 * The broker as a transport for its own application (see `InProcessBrokerTransport`): the producer and the listeners
 * of the application that imports `MmmqBrokerModule` reach it without HTTP, with the guarantees of the remote paths.
 */
@Injectable()
export class InProcessTransport extends InProcessBrokerTransport {
  readonly name = IN_PROCESS_TRANSPORT_NAME;

  constructor(
    private readonly parser: PublishRequestParser,
    private readonly intake: PublishIntake,
    private readonly dispatcher: Dispatcher,
    private readonly registry: DispatcherRegistry,
    private readonly subscriptions: SubscriptionContainer,
    private readonly arrivals: SubscriptionArrivals,
    private readonly transactions: TransactionService,
    private readonly replies: ReplyRelay,
    private readonly canceller: ScheduledCanceller,
  ) {
    super();
  }

  createPublisher(): TransportPublisher {
    return new InProcessPublisher(this.parser, this.intake, this.canceller);
  }

  createSubscriber(): TransportSubscriber {
    const { dispatcher, registry, subscriptions, arrivals, transactions, parser } = this;
    return new InProcessSubscriber({ dispatcher, registry, subscriptions, arrivals, transactions, parser });
  }

  relayReply(reply: Reply): boolean {
    return this.replies.relay(reply);
  }

  /** The broker honours every listener setting. */
  unsupported(): string[] {
    return [];
  }
}

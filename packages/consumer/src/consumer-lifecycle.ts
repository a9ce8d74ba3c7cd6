import { InProcessBrokerTransport } from '@mmmq/core';
import { MMMQ_DESCRIBE_ONLY } from '@mmmq/core/internal';
import { InMemoryTransport } from '@mmmq/core/testing';
import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleDestroy,
  OnModuleInit,
  Optional,
} from '@nestjs/common';
import { drainConsumer } from './runtime/consumer-drain';
import { FrontHandler } from './handling/front-handler';
import { DeliveryServerGate } from './http/delivery-server-gate';
import { PushRoute } from './http/push-route';
import { ListenerInbox } from './inbox/listener-inbox';
import { checkListenerInbox } from './inbox/listener-inbox.check';
import { describeContentType } from './listener/content-type';
import { takesPushes } from './listener/listener-delivery';
import { checkListenerDelivery } from './runtime/listener-delivery.check';
import { buildListenerDefinitions } from './runtime/listener-definitions.builder';
import { ListenerExplorer } from './runtime/listener-explorer';
import { ListenerRegistry } from './listener/listener-registry';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, ResolvedConsumerOptions } from './config/resolved-consumer-options';
import { BrokerPushSubscriber } from './http/broker-push-subscriber';
import { BrokerPullSubscriber } from './pull/broker-pull-subscriber';
import { DispatcherRegistrar } from './registration/dispatcher-registrar';
import { brokerSubscription } from './runtime/broker-subscription';
import { receivingRoute, ReceivingRoute } from './transport/receiving-route';
import { TransportConsumer } from './transport/transport-consumer';

/**
 * Runs the consumer through the application's life: finds and checks the listeners when modules initialise,
 * subscribes them at bootstrap (on the in-memory transport of `MmmqTestingModule`, which wins; the `transport`
 * option; the broker of this very application, in process, when it imports `MmmqBrokerModule` and `broker` is not
 * set; or the MMMQ broker at `broker`, whose subscriber registers each dispatcher, in the background unless
 * `registration.failFast`, and takes its pushes or fetches once it is registered; none of it when `mmmq asyncapi`
 * only describes the application), and drains in-flight handlers first thing on shutdown, before other modules close
 * what handlers may still use.
 */
@Injectable()
export class ConsumerLifecycle implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger('MmmqConsumer');

  constructor(
    @Inject(MMMQ_CONSUMER_RESOLVED_OPTIONS) private readonly options: ResolvedConsumerOptions,
    private readonly explorer: ListenerExplorer,
    private readonly registry: ListenerRegistry,
    private readonly frontHandler: FrontHandler,
    private readonly registrar: DispatcherRegistrar,
    private readonly transport: TransportConsumer,
    private readonly push: BrokerPushSubscriber,
    private readonly pull: BrokerPullSubscriber,
    private readonly serverGate: DeliveryServerGate,
    private readonly pushRoute: PushRoute,
    @Optional() private readonly inMemory?: InMemoryTransport,
    @Optional() private readonly inProcess?: InProcessBrokerTransport,
    @Optional() private readonly inbox?: ListenerInbox,
    @Optional() @Inject(MMMQ_DESCRIBE_ONLY) private readonly describeOnly?: boolean,
  ) {}

  onModuleInit(): void {
    const listeners = buildListenerDefinitions(this.explorer.explore(), this.options);
    checkListenerInbox(listeners, this.inbox, this.options, this.logger);
    const route = this.route();
    if (route === 'broker' || route === 'in-process') checkListenerDelivery(listeners, this.options, route === 'in-process');
    this.registry.replaceAll(listeners);
    for (const listener of listeners) {
      this.logger.log(
        `Listener ${listener.where} ← ${listener.pattern.value} (consumerId ${listener.consumerId}, ` +
          `concurrency ${listener.concurrency}, content ${describeContentType(listener.contentType)}` +
          `${listener.ackMode === 'auto' ? '' : `, ackMode ${listener.ackMode}`}${listener.inbox === true ? ', inbox' : ''})`,
      );
    }
    if (listeners.length === 0) {
      this.logger.warn('No listener found: no provider or controller uses @MMMQListener (on a method or on the class)');
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    const listeners = this.registry.all();
    if (this.describeOnly === true) {
      this.logger.log(`${listeners.length} listener(s) described only (mmmq asyncapi): nothing is subscribed`);
      return;
    }
    switch (this.route()) {
      case 'in-memory':
        await this.transport.subscribeAll(this.inMemory!, listeners);
        this.logger.log(`${listeners.length} listener(s) subscribed to the in-memory broker; self-registration is skipped`);
        return;
      case 'transport':
        return this.transport.subscribeAll(this.options.transport!, listeners);
      case 'in-process':
        await this.transport.subscribeAll(this.inProcess!, listeners);
        this.logger.log(`${listeners.length} listener(s) receive in process from this application's broker`);
        return;
      case 'broker': {
        if (takesPushes(listeners, this.options)) this.serverGate.attach();
        // A listener that pulls answers pushes too: 404, saying it pulls.
        this.pushRoute.attach();
        const { name, subscriberOf, ...how } = brokerSubscription(this.options, listeners, this.push, this.pull);
        await this.transport.subscribeAllOn(name, subscriberOf, listeners, how);
      }
    }
  }

  private route(): ReceivingRoute {
    return receivingRoute(this.options, this.inMemory, this.inProcess);
  }

  /** Drains first thing on shutdown (see drainConsumer), before other modules close what handlers may still use. */
  async onModuleDestroy(): Promise<void> {
    await drainConsumer({
      transport: this.transport,
      frontHandler: this.frontHandler,
      requestsAnswered: (timeoutMs) => this.serverGate.close(timeoutMs),
      timeoutMs: this.options.shutdownTimeoutMs,
      logger: this.logger,
    });
  }

  onApplicationShutdown(): void {
    this.registrar.close();
  }
}

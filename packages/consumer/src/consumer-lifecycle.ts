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
import { drainConsumer } from './consumer-drain';
import { FrontHandler } from './handling/front-handler';
import { DeliveryServerGate } from './http/delivery-server-gate';
import { ListenerInbox } from './inbox/listener-inbox';
import { checkListenerInbox } from './inbox/listener-inbox.check';
import { describeContentType } from './listener/content-type';
import { buildListenerDefinitions } from './listener/listener-definitions.builder';
import { ListenerExplorer } from './listener/listener-explorer';
import { ListenerRegistry } from './listener/listener-registry';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, ResolvedConsumerOptions } from './mmmq-consumer-options.resolver';
import { PullConsumer } from './pull/pull-consumer';
import { DispatcherRegistrar } from './registration/dispatcher-registrar';
import { TransportConsumer } from './transport/transport-consumer';

/**
 * Runs the consumer through the application's life: finds and checks the listeners when modules initialise,
 * connects them at bootstrap (subscribed on a transport: the `transport` option, or the in-memory one of
 * `MmmqTestingModule`, which wins; or self-registration with the MMMQ broker, in the background unless
 * `registration.failFast`, each pull listener fetching once its dispatcher is registered), and drains in-flight
 * handlers first thing on shutdown, before other modules close what handlers may still use.
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
    private readonly pull: PullConsumer,
    private readonly serverGate: DeliveryServerGate,
    @Optional() private readonly inMemory?: InMemoryTransport,
    @Optional() private readonly inbox?: ListenerInbox,
  ) {}

  onModuleInit(): void {
    const listeners = buildListenerDefinitions(this.explorer.explore(), this.options);
    checkListenerInbox(listeners, this.inbox, this.options, this.logger);
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
    if (this.inMemory !== undefined) {
      await this.transport.subscribeAll(this.inMemory, listeners);
      this.logger.log(`${listeners.length} listener(s) subscribed to the in-memory broker; self-registration is skipped`);
      return;
    }
    if (this.options.transport !== undefined) {
      await this.transport.subscribeAll(this.options.transport, listeners);
      return;
    }
    if (this.options.delivery === 'push') this.serverGate.attach();
    // A pull listener fetches once its dispatcher exists; before, the broker would only answer 404.
    await this.registrar.registerAll(listeners, (listener) => this.pull.start(listener));
  }

  /** Drains first thing on shutdown (see drainConsumer), before other modules close what handlers may still use. */
  async onModuleDestroy(): Promise<void> {
    await drainConsumer({
      pull: this.pull,
      transport: this.transport,
      frontHandler: this.frontHandler,
      requestsAnswered: (timeoutMs) => this.serverGate.close(timeoutMs),
      registrar: this.registrar,
      timeoutMs: this.options.shutdownTimeoutMs,
      logger: this.logger,
    });
  }

  onApplicationShutdown(): void {
    this.registrar.close();
  }
}

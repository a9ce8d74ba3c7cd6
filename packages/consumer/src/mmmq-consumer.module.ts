import { ExitAfterSignalShutdown } from '@mmmq/core';
import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ListenerAsyncApiContributor } from './asyncapi/listener-asyncapi.contributor';
import { ConsumerLifecycle } from './consumer-lifecycle';
import { DeliveryHandler } from './handling/delivery-handler';
import { CONSUMER_OBSERVER, ConsumerObserver } from './handling/consumer-observer';
import { FrontHandler } from './handling/front-handler';
import { PushSequencer } from './handling/push-sequencer';
import { ListenerContextCreator } from './handling/listener-context-creator';
import { ClaimCheckResolver } from './handling/claim-check-resolver';
import { ListenerInvoker } from './handling/listener-invoker';
import { DeliveryBodyReader } from './http/delivery-body.reader';
import { DeliveryServerGate } from './http/delivery-server-gate';
import { DeliverySignatureVerifier } from './http/delivery-signature.verifier';
import { PushReceiver } from './http/push-receiver';
import { PushRequestHandler } from './http/push-request-handler';
import { PushRoute } from './http/push-route';
import { BrokerPushSubscriber } from './http/broker-push-subscriber';
import { ListenerExplorer } from './runtime/listener-explorer';
import { ListenerRegistry } from './listener/listener-registry';
import { MMMQ_CONSUMER_OPTIONS, MMMQ_CONSUMER_OPTIONS_TYPE, MmmqConsumerConfigurableModule } from './mmmq-consumer-module-definition';
import { resolveConsumerOptions } from './runtime/mmmq-consumer-options.resolver';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, ResolvedConsumerOptions } from './config/resolved-consumer-options';
import type { MmmqConsumerOptions } from './config/mmmq-consumer.options';
import { ConsumerApi } from './pull/consumer-api';
import { BrokerPullSubscriber } from './pull/broker-pull-subscriber';
import { DispatcherRegistrar } from './registration/dispatcher-registrar';
import { RegistrationStatus } from './registration/registration-status';
import { MmmqConsumerHealthIndicator } from './health/mmmq-consumer.health-indicator';
import { TransportConsumer } from './transport/transport-consumer';
import { TransportStatus } from './transport/transport-status';
import { REPLY_SENDER_PROVIDER } from './reply/reply-sender.provider';

/**
 * Receives messages for the application's listeners, each subscribed on one transport: by default the MMMQ broker,
 * which pushes to `POST /mmmq/messages` (mounted in the application) once (with `broker` and `advertisedUrl`) each
 * listener's dispatcher is registered; with `delivery: 'pull'` it fetches from `broker` instead, registering
 * dispatchers without a host. With `transport`, each listener subscribes on that transport (RabbitMQ, the in-memory
 * broker).
 * Import it once, in the root module: `MmmqConsumerModule.forRoot({...})` or `forRootAsync({...})`.
 * `isGlobal: true` makes the options (`MMMQ_CONSUMER_OPTIONS`) injectable everywhere.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    {
      provide: MMMQ_CONSUMER_RESOLVED_OPTIONS,
      useFactory: (options: MmmqConsumerOptions) => resolveConsumerOptions(options),
      inject: [MMMQ_CONSUMER_OPTIONS],
    },
    {
      provide: FrontHandler,
      useFactory: (options: ResolvedConsumerOptions, observer?: ConsumerObserver) => {
        const handler = new FrontHandler({ queueSize: options.queueSize, maxWorkers: options.workers.max });
        observer?.watchQueue(() => handler.load);
        return handler;
      },
      inject: [MMMQ_CONSUMER_RESOLVED_OPTIONS, { token: CONSUMER_OBSERVER, optional: true }],
    },
    ListenerContextCreator,
    ListenerExplorer,
    ListenerRegistry,
    {
      provide: ClaimCheckResolver,
      useFactory: (options: ResolvedConsumerOptions) => new ClaimCheckResolver(options.claimCheck?.store, options.claimCheck?.maxBytes),
      inject: [MMMQ_CONSUMER_RESOLVED_OPTIONS],
    },
    REPLY_SENDER_PROVIDER,
    ListenerInvoker,
    DeliveryHandler,
    { provide: PushSequencer, useFactory: () => new PushSequencer() },
    DeliveryBodyReader,
    DeliverySignatureVerifier,
    PushReceiver,
    PushRequestHandler,
    PushRoute,
    DeliveryServerGate,
    DispatcherRegistrar,
    RegistrationStatus,
    MmmqConsumerHealthIndicator,
    TransportConsumer,
    {
      provide: TransportStatus,
      useFactory: (observer?: ConsumerObserver) => {
        const status = new TransportStatus();
        observer?.watchTransport(() => status.snapshot());
        return status;
      },
      inject: [{ token: CONSUMER_OBSERVER, optional: true }],
    },
    ConsumerApi,
    BrokerPushSubscriber,
    BrokerPullSubscriber,
    ConsumerLifecycle,
    ListenerAsyncApiContributor,
    ExitAfterSignalShutdown,
  ],
  exports: [MMMQ_CONSUMER_OPTIONS, MmmqConsumerHealthIndicator],
})
export class MmmqConsumerModule extends MmmqConsumerConfigurableModule {
  /** Every option has a default, so `forRoot()` alone gives a consumer without self-registration. */
  static override forRoot(options: typeof MMMQ_CONSUMER_OPTIONS_TYPE = {}) {
    return super.forRoot(options);
  }
}

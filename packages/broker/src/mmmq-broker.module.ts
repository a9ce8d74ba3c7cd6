import { ConsoleAccess } from './console/console-access';
import { ConsoleController } from './console/console.controller';
import { MMMQ_CONSOLE_OPTIONS } from './console/console.options';
import { ConsumersController } from './http/consumers.controller';
import { PullService } from './pull/pull-service';
import { SeekService } from './seek/seek.service';
import { ExitAfterSignalShutdown, InProcessBrokerTransport } from '@mmmq/core';
import { DynamicModule, Module, Provider } from '@nestjs/common';
import { DeadLetterService } from './dispatch/dead-letter-service';
import { MMMQ_DISPATCH_OPTIONS } from './dispatch/dispatch.options';
import { DispatcherRegistry } from './dispatch/dispatcher-registry';
import { Dispatcher } from './dispatch/dispatcher';
import { DispatchersFile } from './dispatch/dispatchers-file';
import { ResolvedDispatchOptions } from './dispatch/dispatch.options';
import { PushTargetGuard, PushTargetResolver } from './dispatch/push-target-guard';
import { PushTargetPolicy } from './dispatch/push-target-policy';
import { AttachGate } from './publish/attach-gate';
import { BacklogGuard } from './publish/backlog-guard';
import { ScheduledCancellations } from './publish/scheduled-cancellations';
import { ScheduledCanceller } from './publish/scheduled-canceller';
import { SubscriptionContainer } from './dispatch/subscription-container';
import { DeadLettersController } from './http/dead-letters.controller';
import { DispatchersController } from './http/dispatchers.controller';
import { HttpServerLimits } from './http/http-server-limits';
import { RawBodyRoutes } from './http/raw-body-routes';
import { JsonBodyReader } from './http/json-body.reader';
import { MessagesController } from './http/messages.controller';
import { PublishRoutes } from './http/publish-routes';
import { ReplyStreamRoutes } from './http/reply-stream-routes';
import { PullRoutes } from './http/pull-routes';
import { StorageController } from './http/storage.controller';
import { RETENTION_HOLDERS } from './retention/retention-holders';
import { EventLoopDemand } from './dispatch/event-loop-demand';
import { JOURNAL_LOOP_DEMAND } from './storage/journal/journal-ports';
import { RetentionService } from './retention/retention.service';
import { TopicLimits } from './retention/topic-limits';
import { SubscriptionsController } from './http/subscriptions.controller';
import { TopicsController } from './http/topics.controller';
import { TransactionsController } from './http/transactions.controller';
import { RepliesController } from './http/replies.controller';
import { ScheduledController } from './http/scheduled.controller';
import { ReplyRelay } from './replies/reply-relay';
import { PUSHED_REPLIES } from './dispatch/pushed-replies';
import { TransactionService } from './transactions/transaction.service';
import { BrokerBus } from './events/broker-bus';
import { BrokerEvents } from './events/broker-events';
import { DispatcherAnnouncer } from './dispatch/dispatcher-announcer';
import { SubscriptionArrivals } from './dispatch/subscription-arrivals';
import { ConfigurableMmmqBrokerModule, MMMQ_BROKER_OPTIONS, MMMQ_BROKER_OPTIONS_TYPE } from './mmmq-broker.module-definition';
import { ResolvedBrokerOptions, resolveBrokerOptions } from './mmmq-broker-options.resolver';
import {
  MMMQ_DISK_GUARD_OPTIONS,
  MMMQ_LIMITS_OPTIONS,
  MMMQ_HTTP_OPTIONS,
  MMMQ_PERSISTENCE_OPTIONS,
  MMMQ_RETENTION_CHECK_OPTIONS,
  MMMQ_STREAM_OPTIONS,
  MmmqBrokerOptions,
  ResolvedPersistenceOptions,
} from './mmmq-broker.options';
import { InProcessRpcClients } from './in-process/in-process-rpc-clients';
import { MMMQ_MEMORY_OPTIONS, type ResolvedMemoryOptions } from './config/memory-options';
import { WindowBudget } from './dispatch/ledger/window-budget';
import { InProcessTransport } from './in-process/in-process-transport';
import { PublishIntake } from './publish/publish-intake';
import { Deduplicator } from './deduplication/deduplicator';
import { PublishRequestParser } from './publish/publish-request.parser';
import { RawBodyReader } from './http/raw-body.reader';
import { MMMQ_AUTH_OPTIONS } from './security/auth-options.resolver';
import { Authenticator } from './security/authenticator';
import { STORAGE_PROVIDERS, TopicQueueContainer } from './storage';
import { PublishStreamServer } from './stream/publish-stream.server';
import { TlsCertificates } from './tls/tls-certificates';
import { TopicRegistry } from './overview/topic-registry';
import { MMMQ_TOPICS_OPTIONS, TopicPolicies } from './topics/topic-policies';

/** The options after defaults and validation. */
const RESOLVED_BROKER_OPTIONS = Symbol('RESOLVED_BROKER_OPTIONS');

/** Provides one part of the resolved options under its own token, so each consumer injects only what it reads. */
function optionsPart(token: symbol, part: keyof ResolvedBrokerOptions): Provider {
  return { provide: token, useFactory: (resolved: ResolvedBrokerOptions) => resolved[part], inject: [RESOLVED_BROKER_OPTIONS] };
}

/**
 * The broker as a Nest module: `POST /mmmq/messages` (and `/batch`) on top of the durable topic logs, the
 * publish stream when `stream` is set, push delivery to the dispatchers of `dispatchers.json`, and the
 * dispatcher, dead-letter and subscription APIs, and the admin web console at `/mmmq/console`.
 *
 * The broker's routes read their own request bodies whatever the host application's body-parser settings
 * (RawBodyRoutes), on express and fastify alike. The application's `MmmqConsumerModule` listeners and
 * `MmmqProducerModule` producer reach it in process ({@link InProcessTransport}).
 *
 * Options are validated when the application is created; an invalid or unknown one fails it, naming the option.
 * The module is global. Injectable: {@link Dispatcher}, {@link TopicQueueContainer} (each topic's `TopicQueue`,
 * and through it its `SegmentFileChain` and `CheckpointDirectory`), {@link BrokerBus}, {@link TopicRegistry} and
 * `InProcessBrokerTransport`. Lifecycle events go to the host's `EventEmitter2` when it imports
 * `EventEmitterModule`; the layers talk over the broker's own {@link BrokerBus} (docs/broker.md).
 */
@Module({
  controllers: [
    MessagesController,
    DispatchersController,
    ConsumersController,
    DeadLettersController,
    SubscriptionsController,
    StorageController,
    TopicsController,
    TransactionsController,
    RepliesController,
    ScheduledController,
    ConsoleController,
  ],
  providers: [
    // Ctrl-C and `kill` end the process with code 0 once it shut down cleanly, as with `useProcessExit`.
    ExitAfterSignalShutdown,
    {
      provide: RESOLVED_BROKER_OPTIONS,
      useFactory: (options: MmmqBrokerOptions) => resolveBrokerOptions(options),
      inject: [MMMQ_BROKER_OPTIONS],
    },
    optionsPart(MMMQ_PERSISTENCE_OPTIONS, 'persistence'),
    optionsPart(MMMQ_DISK_GUARD_OPTIONS, 'diskGuard'),
    optionsPart(MMMQ_RETENTION_CHECK_OPTIONS, 'retention'),
    optionsPart(MMMQ_HTTP_OPTIONS, 'http'),
    optionsPart(MMMQ_STREAM_OPTIONS, 'stream'),
    optionsPart(MMMQ_AUTH_OPTIONS, 'auth'),
    optionsPart(MMMQ_DISPATCH_OPTIONS, 'dispatch'),
    optionsPart(MMMQ_TOPICS_OPTIONS, 'topics'),
    optionsPart(MMMQ_CONSOLE_OPTIONS, 'console'),
    optionsPart(MMMQ_LIMITS_OPTIONS, 'limits'),
    optionsPart(MMMQ_MEMORY_OPTIONS, 'memory'),
    {
      provide: WindowBudget,
      useFactory: (memory: ResolvedMemoryOptions) => new WindowBudget(memory.windowBytes, memory.subscriptionWindowBytes),
      inject: [MMMQ_MEMORY_OPTIONS],
    },
    TopicPolicies,
    {
      provide: PushTargetPolicy,
      useFactory: (dispatch: ResolvedDispatchOptions) => new PushTargetPolicy(dispatch.delivery.allowedNetworks),
      inject: [MMMQ_DISPATCH_OPTIONS],
    },
    PushTargetResolver,
    {
      provide: PushTargetGuard,
      useFactory: (policy: PushTargetPolicy, resolver: PushTargetResolver) => new PushTargetGuard(policy, resolver),
      inject: [PushTargetPolicy, PushTargetResolver],
    },
    {
      provide: DispatcherRegistry,
      useFactory: (persistence: ResolvedPersistenceOptions, policy: PushTargetPolicy) =>
        new DispatcherRegistry(new DispatchersFile(persistence.rootDir), policy),
      inject: [MMMQ_PERSISTENCE_OPTIONS, PushTargetPolicy],
    },
    {
      // Undefined while TLS is off; the files are read (and checked) when the application is created.
      provide: TlsCertificates,
      useFactory: (resolved: ResolvedBrokerOptions) => resolved.tls && new TlsCertificates(resolved.tls),
      inject: [RESOLVED_BROKER_OPTIONS],
    },
    // The host's EventEmitter2 when it imports EventEmitterModule; the broker never provides one itself.
    BrokerEvents,
    // The broker's own emitter between its layers (the log → delivery), whatever the host imports.
    BrokerBus,
    ...STORAGE_PROVIDERS,
    BacklogGuard,
    ScheduledCancellations,
    ScheduledCanceller,
    AttachGate,
    SubscriptionContainer,
    SubscriptionArrivals,
    DispatcherAnnouncer,
    Dispatcher,
    RetentionService,
    { provide: RETENTION_HOLDERS, useExisting: SubscriptionContainer },
    EventLoopDemand,
    { provide: JOURNAL_LOOP_DEMAND, useExisting: EventLoopDemand },
    TopicLimits,
    TopicRegistry,
    DeadLetterService,
    PullService,
    SeekService,
    TransactionService,
    ReplyRelay,
    { provide: PUSHED_REPLIES, useExisting: ReplyRelay },
    JsonBodyReader,
    RawBodyReader,
    PublishRequestParser,
    Deduplicator,
    PublishIntake,
    PublishStreamServer,
    Authenticator,
    HttpServerLimits,
    // Before RawBodyRoutes: its tap would set aside the body headers of the requests these take.
    PublishRoutes,
    ReplyStreamRoutes,
    PullRoutes,
    RawBodyRoutes,
    ConsoleAccess,
    InProcessTransport,
    { provide: InProcessBrokerTransport, useExisting: InProcessTransport },
    // MmmqServer strategies of this application receive in process too (Nest gives them no container of their own).
    InProcessRpcClients,
  ],
  exports: [
    Dispatcher,
    TopicQueueContainer,
    BrokerBus,
    TopicRegistry,
    TopicPolicies,
    PublishStreamServer,
    TlsCertificates,
    InProcessBrokerTransport,
  ],
})
export class MmmqBrokerModule extends ConfigurableMmmqBrokerModule {
  /**
   * `forRoot(options)`, or `forRootAsync({ imports, inject, useFactory })` (also `useClass` / `useExisting` with a
   * class implementing `createMmmqBrokerOptions()`) to read them from `@nestjs/config`. The module is global: one
   * broker per application, its exports injectable everywhere. Every option is optional.
   */
  static override forRoot(options: typeof MMMQ_BROKER_OPTIONS_TYPE = {}): DynamicModule {
    return super.forRoot(options);
  }
}

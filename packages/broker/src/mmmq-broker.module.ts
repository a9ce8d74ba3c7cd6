import { ConsumersController } from './http/consumers.controller';
import { PullService } from './pull/pull-service';
import { DynamicModule, Module, Provider } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { DeadLetterService } from './dispatch/dead-letter-service';
import { MMMQ_DISPATCH_OPTIONS } from './dispatch/dispatch.options';
import { DispatcherRegistry } from './dispatch/dispatcher-registry';
import { DispatchersFile } from './dispatch/dispatchers-file';
import { ResolvedDispatchOptions } from './dispatch/dispatch.options';
import { PushTargetGuard, PushTargetResolver } from './dispatch/push-target-guard';
import { PushTargetPolicy } from './dispatch/push-target-policy';
import { SubscriptionContainer } from './dispatch/subscription-container';
import { DeadLettersController } from './http/dead-letters.controller';
import { DispatchersController } from './http/dispatchers.controller';
import { HttpServerLimits } from './http/http-server-limits';
import { JsonBodyReader } from './http/json-body.reader';
import { MessagesController } from './http/messages.controller';
import { StorageController } from './http/storage.controller';
import { SubscriptionsController } from './http/subscriptions.controller';
import { ResolvedBrokerOptions, resolveBrokerOptions } from './mmmq-broker-options.resolver';
import {
  MMMQ_HTTP_OPTIONS,
  MMMQ_PERSISTENCE_OPTIONS,
  MMMQ_STREAM_OPTIONS,
  MmmqBrokerOptions,
  ResolvedPersistenceOptions,
} from './mmmq-broker.options';
import { FrontDispatcher } from './publish/front-dispatcher';
import { PublishRequestParser } from './publish/publish-request.parser';
import { RawBodyReader } from './publish/raw-body.reader';
import { MMMQ_AUTH_OPTIONS } from './security/auth-options.resolver';
import { Authenticator } from './security/authenticator';
import { STORAGE_PROVIDERS, TopicQueueContainer } from './storage';
import { PublishStreamServer } from './stream/publish-stream.server';
import { TlsCertificates } from './tls/tls-certificates';

const MMMQ_BROKER_OPTIONS = Symbol('MMMQ_BROKER_OPTIONS');

/**
 * The broker as a Nest module: `POST /mmmq/messages` (and `/batch`) on top of the durable topic logs, the
 * publish stream when `stream` is set, push delivery to the dispatchers of `dispatchers.json`, and the
 * dispatcher, dead-letter and subscription APIs.
 *
 * The host application must not let a body parser consume these routes' bodies: create it with
 * `{ bodyParser: false }`, or with `{ rawBody: true }` if other routes need parsed bodies.
 */
/** Provides one part of the resolved options under its own token, so each consumer injects only what it reads. */
function optionsPart(token: symbol, part: keyof ResolvedBrokerOptions): Provider {
  return { provide: token, useFactory: (resolved: ResolvedBrokerOptions) => resolved[part], inject: [MMMQ_BROKER_OPTIONS] };
}

@Module({})
export class MmmqBrokerModule {
  /** Options are validated when the application is created; an invalid one fails it, naming the option. */
  static forRoot(options: MmmqBrokerOptions = {}): DynamicModule {
    return {
      module: MmmqBrokerModule,
      imports: [EventEmitterModule.forRoot()],
      controllers: [
        MessagesController,
        DispatchersController,
        ConsumersController,
        DeadLettersController,
        SubscriptionsController,
        StorageController,
      ],
      providers: [
        { provide: MMMQ_BROKER_OPTIONS, useFactory: () => resolveBrokerOptions(options) },
        optionsPart(MMMQ_PERSISTENCE_OPTIONS, 'persistence'),
        optionsPart(MMMQ_HTTP_OPTIONS, 'http'),
        optionsPart(MMMQ_STREAM_OPTIONS, 'stream'),
        optionsPart(MMMQ_AUTH_OPTIONS, 'auth'),
        optionsPart(MMMQ_DISPATCH_OPTIONS, 'dispatch'),
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
          inject: [MMMQ_BROKER_OPTIONS],
        },
        ...STORAGE_PROVIDERS,
        SubscriptionContainer,
        DeadLetterService,
        PullService,
        JsonBodyReader,
        RawBodyReader,
        PublishRequestParser,
        FrontDispatcher,
        PublishStreamServer,
        Authenticator,
        HttpServerLimits,
      ],
      exports: [MMMQ_PERSISTENCE_OPTIONS, TopicQueueContainer, PublishStreamServer, TlsCertificates],
    };
  }
}

import { DynamicModule, Module } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { MessagesController } from './http/messages.controller';
import { ResolvedBrokerOptions, resolveBrokerOptions } from './mmmq-broker-options.resolver';
import { MMMQ_HTTP_OPTIONS, MMMQ_PERSISTENCE_OPTIONS, MmmqBrokerOptions } from './mmmq-broker.options';
import { FrontDispatcher } from './publish/front-dispatcher';
import { PublishRequestParser } from './publish/publish-request.parser';
import { RawBodyReader } from './publish/raw-body.reader';
import { STORAGE_PROVIDERS, TopicQueueContainer } from './storage';

const MMMQ_BROKER_OPTIONS = Symbol('MMMQ_BROKER_OPTIONS');

/**
 * The broker as a Nest module: `POST /mmmq/messages` (and `/batch`) on top of the durable topic logs.
 *
 * The host application must not let a body parser consume these routes' bodies: create it with
 * `{ bodyParser: false }`, or with `{ rawBody: true }` if other routes need parsed bodies.
 */
@Module({})
export class MmmqBrokerModule {
  /** Options are validated when the application is created; an invalid one fails it, naming the option. */
  static forRoot(options: MmmqBrokerOptions = {}): DynamicModule {
    return {
      module: MmmqBrokerModule,
      imports: [EventEmitterModule.forRoot()],
      controllers: [MessagesController],
      providers: [
        { provide: MMMQ_BROKER_OPTIONS, useFactory: () => resolveBrokerOptions(options) },
        {
          provide: MMMQ_PERSISTENCE_OPTIONS,
          useFactory: (resolved: ResolvedBrokerOptions) => resolved.persistence,
          inject: [MMMQ_BROKER_OPTIONS],
        },
        {
          provide: MMMQ_HTTP_OPTIONS,
          useFactory: (resolved: ResolvedBrokerOptions) => resolved.http,
          inject: [MMMQ_BROKER_OPTIONS],
        },
        ...STORAGE_PROVIDERS,
        RawBodyReader,
        PublishRequestParser,
        FrontDispatcher,
      ],
      exports: [MMMQ_PERSISTENCE_OPTIONS, TopicQueueContainer],
    };
  }
}

import { ExitAfterSignalShutdown, InProcessBrokerTransport } from '@mmmq/core';
import { InMemoryTransport } from '@mmmq/core/testing';
import { DynamicModule, Module } from '@nestjs/common';
import { ProducerAsyncApiContributor } from './asyncapi/producer-asyncapi.contributor';
import { TRANSPORT_GATEWAY_PROVIDER } from './gateway/transport-gateway.provider';
import { ConfigurableMmmqProducerModule, MMMQ_PRODUCER_OPTIONS, MMMQ_PRODUCER_OPTIONS_TYPE } from './mmmq-producer.module-definition';
import { RESOLVED_PRODUCER_OPTIONS, resolveProducerOptions } from './mmmq-producer-options.resolver';
import { MmmqProducerOptions } from './mmmq-producer.options';
import { Producer } from './producer';
import { REPLY_ROUTE_PROVIDER } from './request/reply-route.provider';

/**
 * Provides an injectable {@link Producer}. Options are validated when the application starts, and an invalid
 * one fails it, naming the option. It publishes to the MMMQ broker at `broker`, or through `transport`; in an
 * application that imports `MmmqBrokerModule`, without `broker` or `transport`, to that broker in process (no
 * HTTP); with `MmmqTestingModule` imported, to its `InMemoryBroker` whatever the options say, and `broker` may be
 * left out.
 *
 * `forRoot({ broker, …, isGlobal?, asyncapi? })`, or `forRootAsync({ imports, inject, useFactory, isGlobal? })` to read
 * the options from `@nestjs/config`.
 */
@Module({
  providers: [
    {
      provide: RESOLVED_PRODUCER_OPTIONS,
      useFactory: (options: MmmqProducerOptions, inMemory?: InMemoryTransport, inProcess?: InProcessBrokerTransport) =>
        resolveProducerOptions(options, inMemory !== undefined ? 'in-memory' : inProcess !== undefined && 'in-process'),
      inject: [MMMQ_PRODUCER_OPTIONS, { token: InMemoryTransport, optional: true }, { token: InProcessBrokerTransport, optional: true }],
    },
    TRANSPORT_GATEWAY_PROVIDER,
    REPLY_ROUTE_PROVIDER,
    Producer,
    ProducerAsyncApiContributor,
    // Ctrl-C and `kill` end the process with code 0 once it shut down cleanly, as with `useProcessExit`.
    ExitAfterSignalShutdown,
  ],
  exports: [Producer],
})
export class MmmqProducerModule extends ConfigurableMmmqProducerModule {
  /** The options may be left out in the broker's own application, and in tests that import `MmmqTestingModule`. */
  static override forRoot(options: typeof MMMQ_PRODUCER_OPTIONS_TYPE = {}): DynamicModule {
    return super.forRoot(options);
  }
}

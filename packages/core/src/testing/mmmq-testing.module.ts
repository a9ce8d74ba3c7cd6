import { DynamicModule, Module } from '@nestjs/common';
import { IN_MEMORY_MAX_NACK_RETRIES, InMemoryBroker } from './in-memory-broker';

export interface MmmqTestingOptions {
  /** NACK retries before a dead letter. Default {@link IN_MEMORY_MAX_NACK_RETRIES}. */
  maxNackRetries?: number;
}

/**
 * Replaces the broker in tests: import it beside modules that use `MmmqProducerModule` and
 * `MmmqConsumerModule`, and producers publish to, and listeners receive from, one `InMemoryBroker`.
 */
@Module({})
export class MmmqTestingModule {
  static forRoot(options: MmmqTestingOptions = {}): DynamicModule {
    return {
      module: MmmqTestingModule,
      global: true,
      providers: [{ provide: InMemoryBroker, useValue: new InMemoryBroker(options.maxNackRetries) }],
      exports: [InMemoryBroker],
    };
  }
}

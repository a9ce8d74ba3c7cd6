import { DynamicModule, Module } from '@nestjs/common';
import { InMemoryBroker } from './in-memory-broker';

export interface MmmqTestingOptions {
  /** NACK retries before a dead letter. Default 3 (`IN_MEMORY_MAX_NACK_RETRIES`). */
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

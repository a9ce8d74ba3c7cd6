import { DynamicModule, Module } from '@nestjs/common';
import { InMemoryBroker } from './in-memory-broker';
import { InMemoryTransport } from './in-memory-transport';

export interface MmmqTestingOptions {
  /** NACK retries before a dead letter. Default 3 (`IN_MEMORY_MAX_NACK_RETRIES`). */
  maxNackRetries?: number;
}

/**
 * Replaces the broker in tests: import it beside modules that use `MmmqProducerModule` and
 * `MmmqConsumerModule`, and producers publish to, and listeners receive from, one `InMemoryBroker`, through the
 * `InMemoryTransport` it provides, whatever `broker` or `transport` their options name (so that no test reaches a
 * real broker by mistake).
 */
@Module({})
export class MmmqTestingModule {
  static forRoot(options: MmmqTestingOptions = {}): DynamicModule {
    const broker = new InMemoryBroker(options.maxNackRetries);
    return {
      module: MmmqTestingModule,
      global: true,
      providers: [
        { provide: InMemoryBroker, useValue: broker },
        { provide: InMemoryTransport, useValue: new InMemoryTransport(broker) },
      ],
      exports: [InMemoryBroker, InMemoryTransport],
    };
  }
}

import { MmmqBrokerModule } from '@mmmq/broker';
import { MmmqConsumerModule, type MmmqConsumerOptions, MMMQListener } from '@mmmq/consumer';
import { MmmqProducerModule } from '@mmmq/producer';
import { Module, type DynamicModule } from '@nestjs/common';
import type { BenchContent } from '../payload';
import type { OnMessage } from './system';

/** A transport of `@mmmq/core` (the bench does not depend on core itself). */
type MmmqTransport = NonNullable<MmmqConsumerOptions['transport']>;

/** What the bench consumer module is given: one listener per group (or per member of a shared group). */
export type BenchListener = MMMQListener<BenchContent>;

/**
 * A listener of `pattern` for one group (or one member of a group shared by competing apps: `group` is then the
 * member). Each is an instance of its own decorated class, because its pattern and consumer id are chosen at run time.
 */
export function benchListener(
  pattern: string,
  group: number,
  onMessage: OnMessage,
  options: { name: string; consumerId: string },
): BenchListener {
  @MMMQListener(pattern, options)
  class BenchGroupListener implements MMMQListener<BenchContent> {
    handle(content: BenchContent): void {
      onMessage(group, content);
    }
  }
  return new BenchGroupListener();
}

@Module({})
export class BenchConsumerModule {
  /** `more`: further module options (a pull consumer's, `workers`), the library's defaults otherwise. */
  static register(options: {
    broker: string;
    advertisedUrl?: string;
    autoRegister: boolean;
    listeners: BenchListener[];
    more?: Omit<MmmqConsumerOptions, 'app' | 'broker' | 'advertisedUrl' | 'autoRegister'>;
    /** Modules beside the consumer's (an inbox). */
    imports?: DynamicModule[];
  }): DynamicModule {
    return {
      module: BenchConsumerModule,
      imports: [
        MmmqConsumerModule.forRoot({
          app: 'bench',
          broker: options.broker,
          advertisedUrl: options.advertisedUrl,
          autoRegister: options.autoRegister,
          ...options.more,
        }),
        ...(options.imports ?? []),
      ],
      providers: providersOf(options.listeners),
    };
  }

  /** The same listeners on another transport (`transport` option), every other module option the library's default. */
  static onTransport(transport: MmmqTransport, listeners: BenchListener[]): DynamicModule {
    return {
      module: BenchConsumerModule,
      imports: [MmmqConsumerModule.forRoot({ app: 'bench', transport })],
      providers: providersOf(listeners),
    };
  }
}

const providersOf = (listeners: BenchListener[]) =>
  listeners.map((listener, i) => ({ provide: `BENCH_LISTENER_${i}`, useValue: listener }));

@Module({})
export class BenchProducerModule {
  static register(broker: string): DynamicModule {
    return { module: BenchProducerModule, imports: [MmmqProducerModule.forRoot({ broker })] };
  }

  /** The producer on another transport (`transport` option), with its default batching. */
  static onTransport(transport: MmmqTransport): DynamicModule {
    return { module: BenchProducerModule, imports: [MmmqProducerModule.forRoot({ transport })] };
  }
}

/**
 * The embedded workload's app: the broker, the consumer and the producer in one application, each with
 * `forRoot()` and nothing else but the broker's data dir; the listener and the producer reach the broker in process.
 */
@Module({})
export class BenchEmbeddedAppModule {
  static register(rootDir: string, listener: BenchListener): DynamicModule {
    return {
      module: BenchEmbeddedAppModule,
      imports: [MmmqBrokerModule.forRoot({ persistence: { rootDir } }), MmmqConsumerModule.forRoot(), MmmqProducerModule.forRoot()],
      providers: providersOf([listener]),
    };
  }
}

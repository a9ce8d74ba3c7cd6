import { MmmqConsumerModule, type MMMQListener } from '@mmmq/consumer';
import { MmmqProducerModule } from '@mmmq/producer';
import { Module, type DynamicModule } from '@nestjs/common';
import type { BenchContent } from '../payload';
import type { OnMessage } from './system';

/**
 * One listener per group (or per member of a group shared by competing apps: `group` is then the member), in the
 * class style so that its pattern and consumer id can be chosen at run time.
 */
export class BenchListener implements MMMQListener<BenchContent> {
  constructor(
    private readonly pattern: string,
    private readonly group: number,
    private readonly onMessage: OnMessage,
    readonly listenerOptions: { name: string; consumerId: string },
  ) {}

  listens(): string {
    return this.pattern;
  }

  handle(content: BenchContent): void {
    this.onMessage(this.group, content);
  }
}

@Module({})
export class BenchConsumerModule {
  static register(options: { broker: string; advertisedUrl: string; autoRegister: boolean; listeners: BenchListener[] }): DynamicModule {
    return {
      module: BenchConsumerModule,
      imports: [
        MmmqConsumerModule.forRoot({
          app: 'bench',
          broker: options.broker,
          advertisedUrl: options.advertisedUrl,
          autoRegister: options.autoRegister,
        }),
      ],
      providers: options.listeners.map((listener, i) => ({ provide: `BENCH_LISTENER_${i}`, useValue: listener })),
    };
  }
}

@Module({})
export class BenchProducerModule {
  static register(broker: string): DynamicModule {
    return { module: BenchProducerModule, imports: [MmmqProducerModule.forRoot({ broker })] };
  }
}

import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Charge } from '../billing/charge.entity';
import type { ExactlyOnceConfig } from '../exactly-once-config';
import { Order } from '../orders/order.entity';
import { prepareDatabase } from './prepare-database';

/** The configuration, injectable where a module's `forRootAsync` factory needs it. */
export const EXACTLY_ONCE_CONFIG = Symbol('EXACTLY_ONCE_CONFIG');

/**
 * The TypeORM `DataSource` (a plain provider: the example does without `@nestjs/typeorm`), created once the schema
 * is up to date, and the configuration. Global, so `MmmqInboxModule.forRootAsync` can inject the DataSource.
 */
@Global()
@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(private readonly dataSource: DataSource) {}

  static forRoot(config: ExactlyOnceConfig): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        { provide: EXACTLY_ONCE_CONFIG, useValue: config },
        {
          provide: DataSource,
          useFactory: async () => {
            await prepareDatabase(config.databaseUrl, config.schema);
            const dataSource = new DataSource({
              type: 'postgres',
              url: config.databaseUrl,
              schema: config.schema,
              entities: [Order, Charge],
            });
            return dataSource.initialize();
          },
        },
      ],
      exports: [EXACTLY_ONCE_CONFIG, DataSource],
    };
  }

  // The consumer drains its handlers earlier (onModuleDestroy), so no charge still needs a connection here.
  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

/** Injects the configuration: `constructor(@InjectConfig() config: ExactlyOnceConfig)`. */
export const InjectConfig = () => Inject(EXACTLY_ONCE_CONFIG);

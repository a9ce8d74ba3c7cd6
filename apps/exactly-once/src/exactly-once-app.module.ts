import { DynamicModule, Module } from '@nestjs/common';
import { MmmqOutboxModule } from '@mmmq/postgres';
import { typeOrmAdapter } from '@mmmq/postgres/typeorm';
import { BillingModule } from './billing/billing.module';
import { DatabaseModule, EXACTLY_ONCE_CONFIG } from './database/database.module';
import type { ExactlyOnceConfig } from './exactly-once-config';
import { OrdersModule } from './orders/orders.module';

/**
 * Order service and billing service in one process, talking only through the broker: orders → outbox (same
 * transaction) → relay → broker → billing's listener → inbox + charge (same transaction).
 */
@Module({})
export class ExactlyOnceAppModule {
  static register(config: ExactlyOnceConfig): DynamicModule {
    return {
      module: ExactlyOnceAppModule,
      imports: [
        DatabaseModule.forRoot(config),
        MmmqOutboxModule.forRootAsync({
          isGlobal: true,
          inject: [EXACTLY_ONCE_CONFIG],
          useFactory: ({ databaseUrl, broker, schema }: ExactlyOnceConfig) => ({
            adapter: typeOrmAdapter,
            schema,
            // The relay runs in this application (its own pg pool and LISTEN connection), from bootstrap to shutdown.
            relay: { connection: databaseUrl, producer: { broker } },
          }),
        }),
        OrdersModule,
        BillingModule.register(config),
      ],
    };
  }
}

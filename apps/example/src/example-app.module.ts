import { DynamicModule, Module } from '@nestjs/common';
import { MmmqConsumerModule } from '@mmmq/consumer';
import { MmmqProducerModule } from '@mmmq/producer';
import { BillingModule } from './billing/billing.module';
import { ExampleConfig } from './example-config';
import { OrdersModule } from './orders/orders.module';

/** Order service and billing service in one process, talking only through the broker. */
@Module({})
export class ExampleAppModule {
  static register(config: Pick<ExampleConfig, 'broker' | 'port'>): DynamicModule {
    return {
      module: ExampleAppModule,
      imports: [
        MmmqProducerModule.forRoot({ broker: config.broker, isGlobal: true }),
        MmmqConsumerModule.forRoot({
          app: 'example',
          broker: config.broker,
          advertisedUrl: `http://127.0.0.1:${config.port}`,
        }),
        OrdersModule,
        BillingModule,
      ],
    };
  }
}

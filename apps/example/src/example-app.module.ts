import { DynamicModule, Module } from '@nestjs/common';
import { MmmqConsumerModule, type MmmqConsumerOptions } from '@mmmq/consumer';
import { MmmqProducerModule, type MmmqProducerOptions } from '@mmmq/producer';
import { RabbitMqTransport } from '@mmmq/rabbitmq';
import { BillingModule } from './billing/billing.module';
import { ExampleConfig, isRabbitMqUrl } from './example-config';
import { OrdersModule } from './orders/orders.module';

/** Order service and billing service in one process, talking only through the broker. */
@Module({})
export class ExampleAppModule {
  static register(config: Pick<ExampleConfig, 'broker' | 'port'>): DynamicModule {
    const where = connection(config);
    return {
      module: ExampleAppModule,
      imports: [
        MmmqProducerModule.forRoot({ ...where.producer, isGlobal: true }),
        MmmqConsumerModule.forRoot({ app: 'example', ...where.consumer }),
        OrdersModule,
        BillingModule,
      ],
    };
  }
}

/**
 * The one difference between running on the MMMQ broker and on RabbitMQ (docs/scaling.md): the MMMQ broker is named
 * by its URL and pushes to this application's; RabbitMQ is a `transport`. Listeners and producers stay the same.
 */
function connection({ broker, port }: Pick<ExampleConfig, 'broker' | 'port'>): {
  producer: MmmqProducerOptions;
  consumer: Omit<MmmqConsumerOptions, 'app'>;
} {
  if (isRabbitMqUrl(broker)) {
    const transport = new RabbitMqTransport({ url: broker });
    return { producer: { transport }, consumer: { transport } };
  }
  return { producer: { broker }, consumer: { broker, advertisedUrl: `http://127.0.0.1:${port}` } };
}

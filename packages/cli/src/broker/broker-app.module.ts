import { MmmqBrokerModule, MmmqBrokerOptions } from '@mmmq/broker';
import { DynamicModule, Module } from '@nestjs/common';

/** The standalone server: nothing but the broker module. */
@Module({})
export class BrokerAppModule {
  static register(options: MmmqBrokerOptions): DynamicModule {
    return { module: BrokerAppModule, imports: [MmmqBrokerModule.forRoot(options)] };
  }
}

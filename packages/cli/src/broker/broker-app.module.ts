import { MmmqBrokerModule } from '@mmmq/broker';
import { DynamicModule, Module } from '@nestjs/common';
import type { StandaloneBrokerOptions } from './broker-config';

/** The standalone server: nothing but the broker module. */
@Module({})
export class BrokerAppModule {
  static register(options: StandaloneBrokerOptions): DynamicModule {
    return { module: BrokerAppModule, imports: [MmmqBrokerModule.forRoot(options)] };
  }
}

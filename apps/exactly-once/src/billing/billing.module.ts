import { DynamicModule, Module } from '@nestjs/common';
import { MmmqConsumerModule } from '@mmmq/consumer';
import { MmmqInboxModule } from '@mmmq/postgres';
import { typeOrmAdapter } from '@mmmq/postgres/typeorm';
import { DataSource } from 'typeorm';
import { EXACTLY_ONCE_CONFIG } from '../database/database.module';
import type { ExactlyOnceConfig } from '../exactly-once-config';
import { BillingListener } from './billing.listener';
import { ChargesController } from './charges.controller';
import { LostAcknowledgements } from './lost-acknowledgements';

/** The billing service: charges each placed order once, through the inbox; `GET /charges` lists the charges. */
@Module({})
export class BillingModule {
  static register(config: ExactlyOnceConfig): DynamicModule {
    const lostAcknowledgements = new LostAcknowledgements(config.loseFirstAck);
    return {
      module: BillingModule,
      imports: [
        // Pull delivery: billing fetches from the broker, so the broker needs no route to this application.
        MmmqConsumerModule.forRoot({ app: 'billing', broker: config.broker, delivery: 'pull' }),
        MmmqInboxModule.forRootAsync({
          inject: [DataSource, EXACTLY_ONCE_CONFIG],
          useFactory: (dataSource: DataSource, { schema }: ExactlyOnceConfig) => ({
            adapter: typeOrmAdapter,
            transaction: lostAcknowledgements.wrap((work) => dataSource.transaction(work)),
            schema,
          }),
        }),
      ],
      controllers: [ChargesController],
      providers: [BillingListener, { provide: LostAcknowledgements, useValue: lostAcknowledgements }],
      exports: [LostAcknowledgements],
    };
  }
}

import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { MmmqConsumerOptions } from './mmmq-consumer.options';

export const {
  ConfigurableModuleClass: MmmqConsumerConfigurableModule,
  MODULE_OPTIONS_TOKEN: MMMQ_CONSUMER_OPTIONS,
  OPTIONS_TYPE: MMMQ_CONSUMER_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MMMQ_CONSUMER_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<MmmqConsumerOptions>({ moduleName: 'MmmqConsumer' })
  .setClassMethodName('forRoot')
  .setExtras({ isGlobal: false }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();

import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { MmmqProducerOptions } from './mmmq-producer.options';

export const {
  ConfigurableModuleClass: ConfigurableMmmqProducerModule,
  MODULE_OPTIONS_TOKEN: MMMQ_PRODUCER_OPTIONS,
  OPTIONS_TYPE: MMMQ_PRODUCER_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MMMQ_PRODUCER_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<MmmqProducerOptions>({ moduleName: 'MmmqProducer' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createMmmqProducerOptions')
  .setExtras({ isGlobal: false }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();

import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { MmmqBrokerOptions } from './mmmq-broker.options';

export const {
  ConfigurableModuleClass: ConfigurableMmmqBrokerModule,
  MODULE_OPTIONS_TOKEN: MMMQ_BROKER_OPTIONS,
  OPTIONS_TYPE: MMMQ_BROKER_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MMMQ_BROKER_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<MmmqBrokerOptions>({ moduleName: 'MmmqBroker' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createMmmqBrokerOptions')
  .setExtras({ isGlobal: false }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();

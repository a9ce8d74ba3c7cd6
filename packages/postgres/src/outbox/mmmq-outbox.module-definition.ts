import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { MmmqOutboxOptions } from './mmmq-outbox.options';

export const {
  ConfigurableModuleClass: ConfigurableMmmqOutboxModule,
  MODULE_OPTIONS_TOKEN: MMMQ_OUTBOX_OPTIONS,
  OPTIONS_TYPE: MMMQ_OUTBOX_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MMMQ_OUTBOX_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<MmmqOutboxOptions>({ moduleName: 'MmmqOutbox' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createMmmqOutboxOptions')
  .setExtras({ isGlobal: false }, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();

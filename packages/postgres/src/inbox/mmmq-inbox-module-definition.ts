import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { MmmqInboxOptions } from './mmmq-inbox.options';

export const {
  ConfigurableModuleClass: MmmqInboxConfigurableModule,
  MODULE_OPTIONS_TOKEN: MMMQ_INBOX_OPTIONS,
  OPTIONS_TYPE: MMMQ_INBOX_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MMMQ_INBOX_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<MmmqInboxOptions>({ moduleName: 'MmmqInbox' }).setClassMethodName('forRoot').build();

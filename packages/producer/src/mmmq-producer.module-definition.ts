import type { AsyncApiRouteOptions } from '@mmmq/core';
import { ConfigurableModuleBuilder } from '@nestjs/common';
import { withAsyncApiRoute } from './asyncapi/with-asyncapi-route';
import type { MmmqProducerOptions } from './mmmq-producer.options';

/** Options that shape the module itself (its routes), so they sit beside the (possibly async) producer options. */
interface MmmqProducerModuleExtras {
  /** Makes the `Producer` injectable everywhere. Default false. */
  isGlobal: boolean;
  /**
   * `GET /asyncapi.json`: the application's AsyncAPI 3.0 document (docs/asyncapi.md). `true` or
   * `{ path, title, version, description }`. Default off.
   */
  asyncapi: boolean | AsyncApiRouteOptions;
}

export const {
  ConfigurableModuleClass: ConfigurableMmmqProducerModule,
  MODULE_OPTIONS_TOKEN: MMMQ_PRODUCER_OPTIONS,
  OPTIONS_TYPE: MMMQ_PRODUCER_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MMMQ_PRODUCER_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<MmmqProducerOptions>({ moduleName: 'MmmqProducer' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createMmmqProducerOptions')
  .setExtras<MmmqProducerModuleExtras>({ isGlobal: false, asyncapi: false }, (definition, extras) =>
    withAsyncApiRoute({ ...definition, global: extras.isGlobal }, extras.asyncapi),
  )
  .build();

import type { ExternalContextCreator, NestContainer } from '@nestjs/core';

/**
 * Every part of Nest the consumer uses that Nest's public entry points (`@nestjs/common`, `@nestjs/core`) do not
 * export, in one place. `@nestjs/microservices` imports the same ones for its `@MessagePattern` handlers. Checked
 * against @nestjs/common and @nestjs/core 11.2.10; `test/nest-internals.spec.ts` fails when one moves or changes shape.
 */
export { METHOD_METADATA, MODULE_PATH, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
export { ExternalExceptionFilterContext } from '@nestjs/core/exceptions/external-exception-filter-context';
export type { ExternalExceptionsHandler } from '@nestjs/core/exceptions/external-exceptions-handler';
export { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
export type { ParamsFactory } from '@nestjs/core/helpers/external-context-creator';
export type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';

/**
 * The container an `ExternalContextCreator` was built from (`fromContainer` keeps it in a field Nest does not
 * publish), or undefined where a Nest version keeps none: exception filters then run in Nest's own error proxy.
 */
export function containerOf(creator: ExternalContextCreator): NestContainer | undefined {
  const container = (creator as unknown as { container?: NestContainer }).container;
  return container?.applicationConfig ? container : undefined;
}

import { asyncApiRouteController } from '@mmmq/core/internal';
import type { DynamicModule } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { ConsumerEndpoint } from '../support/endpoint-route.check';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, type ResolvedConsumerOptions } from '../config/resolved-consumer-options';
import { resolveAsyncApiEndpoint } from './asyncapi-endpoint.options';

/**
 * Adds `GET {path}` with the application's AsyncAPI document (docs/asyncapi.md) to the consumer's module when
 * `asyncapi` is on; its title defaults to the `app` option.
 * @throws InvalidConsumerOptionsError naming the `asyncapi` option that is wrong
 */
export function withAsyncApiEndpoint(definition: DynamicModule, asyncapi: unknown): DynamicModule {
  const route = resolveAsyncApiEndpoint(asyncapi);
  if (!route.enabled) return definition;
  const controller = asyncApiRouteController(route, {
    container: ModulesContainer,
    defaultTitle: { token: MMMQ_CONSUMER_RESOLVED_OPTIONS, read: (options) => (options as ResolvedConsumerOptions).app },
    decorators: [ConsumerEndpoint({ option: 'asyncapi', suggestedPath: 'asyncapi/consumer.json' })],
  });
  return { ...definition, controllers: [...(definition.controllers ?? []), controller] };
}

import { asyncApiRouteController, resolveAsyncApiRoute } from '@mmmq/core/internal';
import type { DynamicModule } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { InvalidProducerOptionsError } from '../errors/invalid-producer-options.error';

/**
 * Adds `GET {path}` with the application's AsyncAPI document (docs/asyncapi.md) to the producer's module when
 * `asyncapi` is on: for an application without `MmmqConsumerModule`, or one whose consumer does not serve it.
 * @throws InvalidProducerOptionsError naming the `asyncapi` option that is wrong
 */
export function withAsyncApiRoute(definition: DynamicModule, asyncapi: unknown): DynamicModule {
  const route = resolveAsyncApiRoute(asyncapi, InvalidProducerOptionsError);
  if (!route.enabled) return definition;
  const controller = asyncApiRouteController(route, { container: ModulesContainer });
  return { ...definition, controllers: [...(definition.controllers ?? []), controller] };
}

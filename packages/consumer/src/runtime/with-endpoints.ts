import type { DynamicModule } from '@nestjs/common';
import { withAsyncApiEndpoint } from '../asyncapi/with-asyncapi-endpoint';
import { withHealthEndpoint } from '../health/with-health-endpoint';
import { withMetricsEndpoint } from '../metrics/with-metrics-endpoint';
import { EndpointRouteCheck } from '../support/endpoint-route.check';

/**
 * The consumer module with the routes its `health`, `metrics` and `asyncapi` options ask for (all off by default), and
 * the check that no other controller serves them.
 *
 * @throws InvalidConsumerOptionsError naming the option that is wrong
 * @throws MissingPeerDependencyError when an option is on and the package it needs is not installed
 */
export function withEndpoints(definition: DynamicModule, health: unknown, metrics: unknown, asyncapi: unknown): DynamicModule {
  const module = withAsyncApiEndpoint(withMetricsEndpoint(withHealthEndpoint(definition, health), metrics), asyncapi);
  if (module === definition) return definition;
  return { ...module, providers: [...(module.providers ?? []), EndpointRouteCheck] };
}

import type { DynamicModule } from '@nestjs/common';
import type * as PromClient from 'prom-client';
import { describe } from '../support/option-checks';
import { InvalidConsumerOptionsError } from '../errors/invalid-consumer-options.error';
import { CONSUMER_OBSERVER } from '../handling/consumer-observer';
import { loadOptionalPeer } from '../support/optional-peer';
import type * as ConsumerMetricsFile from './consumer-metrics';
import { metricsEndpointController } from './metrics-endpoint.controller';
import { resolveMetricsEndpoint } from './metrics-endpoint.options';
import { MMMQ_CONSUMER_METRICS_REGISTRY } from './metrics-registry.token';

/** The package the `metrics` option needs, an optional peer dependency of `@mmmq/consumer`. */
export const PROM_CLIENT_PACKAGE = 'prom-client';

/**
 * Adds the consumer's measurements and `GET {path}` to its module when `metrics` is on; prom-client (and the files
 * that import it) are loaded only then. The measurements are the ones `MmmqConsumerMetricsModule` adds by hand.
 *
 * @throws InvalidConsumerOptionsError naming the `metrics` option that is wrong
 * @throws MissingPeerDependencyError when `metrics` is on and prom-client is not installed
 */
export function withMetricsEndpoint(definition: DynamicModule, metrics: unknown): DynamicModule {
  const resolved = resolveMetricsEndpoint(metrics);
  if (!resolved.enabled) return definition;
  const promClient = loadOptionalPeer<typeof PromClient>(PROM_CLIENT_PACKAGE, 'metrics');
  const registry = resolved.registry ?? promClient.register;
  if (!(registry instanceof promClient.Registry)) {
    throw new InvalidConsumerOptionsError(`metrics.registry must be a prom-client Registry (prom-client 15), got ${describe(registry)}`);
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loads prom-client, so only once it is known to be there
  const { ConsumerMetrics } = require('./consumer-metrics') as typeof ConsumerMetricsFile;
  return {
    ...definition,
    controllers: [...(definition.controllers ?? []), metricsEndpointController(resolved.path)],
    providers: [
      ...(definition.providers ?? []),
      { provide: MMMQ_CONSUMER_METRICS_REGISTRY, useValue: registry },
      ConsumerMetrics,
      { provide: CONSUMER_OBSERVER, useExisting: ConsumerMetrics },
    ],
  };
}

import type { DynamicModule } from '@nestjs/common';
import type * as Terminus from '@nestjs/terminus';
import { loadOptionalPeer } from '../support/optional-peer';
import { healthEndpointController } from './health-endpoint.controller';
import { resolveHealthEndpoint } from './health-endpoint.options';

/** The package the `health` option needs, an optional peer dependency of `@mmmq/consumer`. */
export const TERMINUS_PACKAGE = '@nestjs/terminus';

/**
 * Adds the consumer's probes to its module when `health` is on; terminus is loaded only then.
 *
 * @throws InvalidConsumerOptionsError naming the `health` option that is wrong
 * @throws MissingPeerDependencyError when `health` is on and `@nestjs/terminus` is not installed
 */
export function withHealthEndpoint(definition: DynamicModule, health: unknown): DynamicModule {
  const resolved = resolveHealthEndpoint(health);
  if (!resolved.enabled) return definition;
  const terminus = loadOptionalPeer<typeof Terminus>(TERMINUS_PACKAGE, 'health');
  return {
    ...definition,
    // Terminus's own logger would log every failed probe (every few seconds while not ready); the registrar and the
    // transport log the causes once.
    imports: [...(definition.imports ?? []), terminus.TerminusModule.forRoot({ logger: false })],
    controllers: [...(definition.controllers ?? []), healthEndpointController(terminus, resolved)],
  };
}

import type { DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { BrokerReadinessIndicator } from './broker-readiness.indicator';
import { healthController } from './health.controller';
import { resolveHealthOptions } from './health.options';

/**
 * Adds the probes' routes to the broker module unless `health.enabled` is false. The readiness checks are provided
 * and exported either way, for a host application that serves its own health endpoint.
 *
 * @throws InvalidBrokerOptionsError naming the `health` option that is wrong
 */
export function withHealth(definition: DynamicModule, health: unknown): DynamicModule {
  const resolved = resolveHealthOptions(health);
  return {
    ...definition,
    // Terminus's own logger would log every failed probe (every few seconds while not ready); the causes are
    // logged once where they happen (the disk guard, a topic's failed write).
    imports: [...(definition.imports ?? []), TerminusModule.forRoot({ logger: false })],
    controllers: [...(definition.controllers ?? []), ...(resolved.enabled ? [healthController(resolved.path)] : [])],
    providers: [...(definition.providers ?? []), BrokerReadinessIndicator],
    exports: [...(definition.exports ?? []), BrokerReadinessIndicator],
  };
}

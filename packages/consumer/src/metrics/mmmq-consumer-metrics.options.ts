import { describeValue as describe } from '@mmmq/core';
import { Registry } from 'prom-client';
import { InvalidConsumerOptionsError } from '../errors/invalid-consumer-options.error';

/** Options of `MmmqConsumerMetricsModule.forRoot`. */
export interface MmmqConsumerMetricsOptions {
  /** The application's prom-client registry, the one its `/metrics` serves. Default: prom-client's global `register`. */
  registry?: Registry;
}

export { MMMQ_CONSUMER_METRICS_REGISTRY } from './metrics-registry.token';

/** @throws InvalidConsumerOptionsError naming the option that is wrong */
export function resolveConsumerMetricsRegistry(options: unknown, fallback: Registry): Registry {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidConsumerOptionsError(`MmmqConsumerMetricsModule options must be an object { registry? }, got ${describe(options)}`);
  }
  const unknown = Object.keys(options).find((key) => key !== 'registry');
  if (unknown !== undefined)
    throw new InvalidConsumerOptionsError(`Unknown option ${unknown} of MmmqConsumerMetricsModule; the options are registry`);
  const { registry = fallback } = options as MmmqConsumerMetricsOptions;
  if (!(registry instanceof Registry)) {
    throw new InvalidConsumerOptionsError(`registry must be a prom-client Registry (prom-client 15), got ${describe(registry)}`);
  }
  return registry;
}

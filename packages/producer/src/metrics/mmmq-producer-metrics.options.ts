import { describeValue as describe } from '@mmmq/core';
import { Registry } from 'prom-client';
import { InvalidProducerOptionsError } from '../errors/invalid-producer-options.error';

/** Options of `MmmqProducerMetricsModule.forRoot`. */
export interface MmmqProducerMetricsOptions {
  /** The application's prom-client registry, the one its `/metrics` serves. Default: prom-client's global `register`. */
  registry?: Registry;
}

/** Injection token of the registry the producer's metrics go to. */
export const MMMQ_PRODUCER_METRICS_REGISTRY = Symbol('MMMQ_PRODUCER_METRICS_REGISTRY');

/** @throws InvalidProducerOptionsError naming the option that is wrong */
export function resolveProducerMetricsRegistry(options: unknown, fallback: Registry): Registry {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidProducerOptionsError(`MmmqProducerMetricsModule options must be an object { registry? }, got ${describe(options)}`);
  }
  const unknown = Object.keys(options).find((key) => key !== 'registry');
  if (unknown !== undefined)
    throw new InvalidProducerOptionsError(`Unknown option ${unknown} of MmmqProducerMetricsModule; the options are registry`);
  const { registry = fallback } = options as MmmqProducerMetricsOptions;
  if (!(registry instanceof Registry)) {
    throw new InvalidProducerOptionsError(`registry must be a prom-client Registry (prom-client 15), got ${describe(registry)}`);
  }
  return registry;
}

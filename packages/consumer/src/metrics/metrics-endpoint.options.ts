import type { Registry } from 'prom-client';
import { endpointOptions, endpointPath } from '../support/endpoint-option-checks';

/**
 * Path of the consumer's scrape endpoint when `metrics.path` is not given: `GET /metrics`, what Prometheus scrapes by
 * default and the broker's path. A broker in the same application serves it already: give one of them another path.
 */
export const DEFAULT_CONSUMER_METRICS_PATH = 'metrics';

/**
 * `GET {path}` served by the consumer in the Prometheus text format (docs/consumer.md#health-and-metrics-endpoints),
 * with prom-client. Given next to the consumer options (`forRoot({ …, metrics })`), not inside an async factory's
 * result: the route exists or not when the module is built.
 */
export interface MetricsEndpointOptions {
  /** False leaves the route and every measurement out. Default true once `metrics` is given as an object. */
  enabled?: boolean;
  /** Path of the endpoint, without slashes at the ends. Default {@link DEFAULT_CONSUMER_METRICS_PATH}. */
  path?: string;
  /**
   * The registry the consumer's metrics go to and the endpoint serves, with whatever else the application put in it.
   * Default: prom-client's global `register`.
   */
  registry?: Registry;
}

/** The endpoint's settings after validation; the registry is checked once prom-client is loaded. */
export type ResolvedMetricsEndpoint = { enabled: false } | { enabled: true; path: string; registry: unknown };

const METRICS_FIELDS: ReadonlySet<string> = new Set(['enabled', 'path', 'registry']);

/**
 * Off unless given: `true` (the defaults) or an object.
 * @throws InvalidConsumerOptionsError naming the `metrics` option that is wrong
 */
export function resolveMetricsEndpoint(metrics: unknown): ResolvedMetricsEndpoint {
  const options = endpointOptions('metrics', metrics, METRICS_FIELDS);
  if (options === undefined) return { enabled: false };
  const { path = DEFAULT_CONSUMER_METRICS_PATH, registry } = options;
  return { enabled: true, path: endpointPath('metrics.path', path), registry };
}

import { describeValue as describe } from '@mmmq/core';
import { InvalidBrokerOptionsError } from '../invalid-broker-options.error';

/** Path of the scrape endpoint when `metrics.path` is not given: `GET /metrics`, what Prometheus scrapes by default. */
export const DEFAULT_METRICS_PATH = 'metrics';

/**
 * The Prometheus endpoint. Given next to the broker options (`forRoot({ …, metrics })`), not inside an async
 * factory's result: the route exists or not when the module is built.
 */
export interface MetricsOptions {
  /** False leaves the route and every measurement out. Default true. */
  enabled?: boolean;
  /** Path of the endpoint, without slashes at the ends. Default {@link DEFAULT_METRICS_PATH}. */
  path?: string;
}

/** The endpoint's settings after validation. */
export type ResolvedMetricsOptions = { enabled: false } | { enabled: true; path: string };

const METRICS_OPTIONS: Record<keyof MetricsOptions, true> = { enabled: true, path: true };
/** Path segments of letters, digits, `-`, `_` and `.`, separated by single slashes. */
const PATH = /^[\w.-]+(\/[\w.-]+)*$/;

/** @throws InvalidBrokerOptionsError naming the `metrics` option that is wrong */
export function resolveMetricsOptions(metrics: unknown = {}): ResolvedMetricsOptions {
  if (typeof metrics !== 'object' || metrics === null || Array.isArray(metrics)) {
    throw new InvalidBrokerOptionsError(`metrics must be an object { enabled?, path? }, got ${describe(metrics)}`);
  }
  const unknown = Object.keys(metrics).find((key) => !Object.hasOwn(METRICS_OPTIONS, key));
  if (unknown !== undefined)
    throw new InvalidBrokerOptionsError(`Unknown option metrics.${unknown}; the metrics options are enabled, path`);
  const { enabled = true, path = DEFAULT_METRICS_PATH } = metrics as MetricsOptions;
  if (typeof enabled !== 'boolean') throw new InvalidBrokerOptionsError(`metrics.enabled must be true or false, got ${describe(enabled)}`);
  if (!enabled) return { enabled };
  if (typeof path !== 'string' || !PATH.test(path)) {
    throw new InvalidBrokerOptionsError(
      `metrics.path must be path segments (letters, digits, - _ .) separated by /, without leading or trailing slash, got ${describe(path)}`,
    );
  }
  return { enabled, path };
}

import { describeValue as describe } from '@mmmq/core';
import { InvalidBrokerOptionsError } from '../config/invalid-broker-options.error';

/** Path of the scrape endpoint when `metrics.path` is not given: `GET /metrics`, what Prometheus scrapes by default. */
export const DEFAULT_METRICS_PATH = 'metrics';

/**
 * Topics with series of their own when `metrics.maxTopicSeries` is not given; the others are summed under
 * `topic="__other"`. About 25 lines of exposition per topic (a histogram's buckets are most of them).
 */
export const DEFAULT_MAX_TOPIC_SERIES = 1_000;
/** Subscriptions with series of their own when `metrics.maxSubscriptionSeries` is not given; the rest: `__other`. */
export const DEFAULT_MAX_SUBSCRIPTION_SERIES = 1_000;

/**
 * The Prometheus endpoint. Given next to the broker options (`forRoot({ …, metrics })`), not inside an async
 * factory's result: the route exists or not when the module is built.
 */
export interface MetricsOptions {
  /** False leaves the route and every measurement out. Default true. */
  enabled?: boolean;
  /** Path of the endpoint, without slashes at the ends. Default {@link DEFAULT_METRICS_PATH}. */
  path?: string;
  /**
   * Topics with series of their own, at most; the others are summed under `topic="__other"`. A non-negative integer.
   * Default {@link DEFAULT_MAX_TOPIC_SERIES}.
   */
  maxTopicSeries?: number;
  /**
   * Subscriptions with series of their own, at most; the others are summed under `topic="__other",
   * consumer_id="__other"`. A non-negative integer. Default {@link DEFAULT_MAX_SUBSCRIPTION_SERIES}.
   */
  maxSubscriptionSeries?: number;
}

/** The endpoint's settings after validation. */
export type ResolvedMetricsOptions = { enabled: false } | EnabledMetricsOptions;

export interface EnabledMetricsOptions {
  enabled: true;
  path: string;
  maxTopicSeries: number;
  maxSubscriptionSeries: number;
}

/** Injection token of the {@link EnabledMetricsOptions}. */
export const MMMQ_METRICS_OPTIONS = Symbol('MMMQ_METRICS_OPTIONS');

const METRICS_OPTIONS: Record<keyof MetricsOptions, true> = {
  enabled: true,
  path: true,
  maxTopicSeries: true,
  maxSubscriptionSeries: true,
};
/** Path segments of letters, digits, `-`, `_` and `.`, separated by single slashes. */
const PATH = /^[\w.-]+(\/[\w.-]+)*$/;

/** @throws InvalidBrokerOptionsError naming the `metrics` option that is wrong */
export function resolveMetricsOptions(metrics: unknown = {}): ResolvedMetricsOptions {
  if (typeof metrics !== 'object' || metrics === null || Array.isArray(metrics)) {
    throw new InvalidBrokerOptionsError(
      `metrics must be an object { enabled?, path?, maxTopicSeries?, maxSubscriptionSeries? }, got ${describe(metrics)}`,
    );
  }
  const unknown = Object.keys(metrics).find((key) => !Object.hasOwn(METRICS_OPTIONS, key));
  if (unknown !== undefined)
    throw new InvalidBrokerOptionsError(
      `Unknown option metrics.${unknown}; the metrics options are ${Object.keys(METRICS_OPTIONS).join(', ')}`,
    );
  const {
    enabled = true,
    path = DEFAULT_METRICS_PATH,
    maxTopicSeries = DEFAULT_MAX_TOPIC_SERIES,
    maxSubscriptionSeries = DEFAULT_MAX_SUBSCRIPTION_SERIES,
  } = metrics as MetricsOptions;
  if (typeof enabled !== 'boolean') throw new InvalidBrokerOptionsError(`metrics.enabled must be true or false, got ${describe(enabled)}`);
  if (!enabled) return { enabled };
  if (typeof path !== 'string' || !PATH.test(path)) {
    throw new InvalidBrokerOptionsError(
      `metrics.path must be path segments (letters, digits, - _ .) separated by /, without leading or trailing slash, got ${describe(path)}`,
    );
  }
  for (const [name, value] of Object.entries({ maxTopicSeries, maxSubscriptionSeries })) {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
      throw new InvalidBrokerOptionsError(`metrics.${name} must be a non-negative integer, got ${describe(value)}`);
  }
  return { enabled, path, maxTopicSeries, maxSubscriptionSeries };
}

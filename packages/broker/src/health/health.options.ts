import { describeValue as describe } from '@mmmq/core';
import { InvalidBrokerOptionsError } from '../config/invalid-broker-options.error';

/**
 * Path prefix of the probes when `health.path` is not given: `GET /health/live` and `GET /health/ready`, the
 * names Kubernetes examples and most load balancers expect.
 */
export const DEFAULT_HEALTH_PATH = 'health';

/**
 * The liveness and readiness probes. Given next to the broker options (`forRoot({ …, health })`,
 * `forRootAsync({ useFactory, health })`), not inside the factory's result: the routes exist or not when the module
 * is built, before any factory runs.
 */
export interface HealthOptions {
  /** False leaves the routes out, for a host application with a `/health` of its own. Default true. */
  enabled?: boolean;
  /** Prefix of `live` and `ready`, without slashes at the ends. Default {@link DEFAULT_HEALTH_PATH}. */
  path?: string;
}

/** The probes' settings after validation. */
export type ResolvedHealthOptions = { enabled: false } | { enabled: true; path: string };

const HEALTH_OPTIONS: Record<keyof HealthOptions, true> = { enabled: true, path: true };
/** Path segments of letters, digits, `-`, `_` and `.`, separated by single slashes. */
const PATH = /^[\w.-]+(\/[\w.-]+)*$/;

/** @throws InvalidBrokerOptionsError naming the `health` option that is wrong */
export function resolveHealthOptions(health: unknown = {}): ResolvedHealthOptions {
  if (typeof health !== 'object' || health === null || Array.isArray(health)) {
    throw new InvalidBrokerOptionsError(`health must be an object { enabled?, path? }, got ${describe(health)}`);
  }
  const unknown = Object.keys(health).find((key) => !Object.hasOwn(HEALTH_OPTIONS, key));
  if (unknown !== undefined) throw new InvalidBrokerOptionsError(`Unknown option health.${unknown}; the health options are enabled, path`);
  const { enabled = true, path = DEFAULT_HEALTH_PATH } = health as HealthOptions;
  if (typeof enabled !== 'boolean') throw new InvalidBrokerOptionsError(`health.enabled must be true or false, got ${describe(enabled)}`);
  if (!enabled) return { enabled };
  if (typeof path !== 'string' || !PATH.test(path)) {
    throw new InvalidBrokerOptionsError(
      `health.path must be path segments (letters, digits, - _ .) separated by /, without leading or trailing slash, got ${describe(path)}`,
    );
  }
  return { enabled, path };
}

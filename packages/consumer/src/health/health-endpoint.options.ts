import { endpointOptions, endpointPath } from '../support/endpoint-option-checks';
import { positiveInteger } from '../support/option-checks';
import { DEFAULT_MAX_HANDLER_MS, DEFAULT_MAX_QUEUE_FULL_MS } from './mmmq-consumer.health-indicator';

/**
 * Path prefix of the consumer's probes when `health.path` is not given: `GET /health/live` and `GET /health/ready`,
 * the broker's names. A broker in the same application serves these already: give one of them another path.
 */
export const DEFAULT_CONSUMER_HEALTH_PATH = 'health';

/**
 * `GET {path}/live` and `GET {path}/ready` served by the consumer (docs/consumer.md#health-and-metrics-endpoints),
 * with `@nestjs/terminus`. Given next to the consumer options (`forRoot({ …, health })`,
 * `forRootAsync({ useFactory, health })`): the routes exist or not when the module is built.
 */
export interface HealthEndpointOptions {
  /** False leaves the routes out. Default true once `health` is given as an object. */
  enabled?: boolean;
  /** Prefix of `live` and `ready`, without slashes at the ends. Default {@link DEFAULT_CONSUMER_HEALTH_PATH}. */
  path?: string;
  /** A handler running longer makes `ready` down. Default {@link DEFAULT_MAX_HANDLER_MS}. */
  maxHandlerMs?: number;
  /** The worker queue full longer makes `ready` down. Default {@link DEFAULT_MAX_QUEUE_FULL_MS}. */
  maxQueueFullMs?: number;
}

/** The probes' settings after validation. */
export type ResolvedHealthEndpoint = { enabled: false } | { enabled: true; path: string; maxHandlerMs: number; maxQueueFullMs: number };

const HEALTH_FIELDS: ReadonlySet<string> = new Set(['enabled', 'path', 'maxHandlerMs', 'maxQueueFullMs']);

/**
 * Off unless given: `true` (the defaults) or an object.
 * @throws InvalidConsumerOptionsError naming the `health` option that is wrong
 */
export function resolveHealthEndpoint(health: unknown): ResolvedHealthEndpoint {
  const options = endpointOptions('health', health, HEALTH_FIELDS);
  if (options === undefined) return { enabled: false };
  const {
    path = DEFAULT_CONSUMER_HEALTH_PATH,
    maxHandlerMs = DEFAULT_MAX_HANDLER_MS,
    maxQueueFullMs = DEFAULT_MAX_QUEUE_FULL_MS,
  } = options;
  return {
    enabled: true,
    path: endpointPath('health.path', path),
    maxHandlerMs: positiveInteger('health.maxHandlerMs', maxHandlerMs),
    maxQueueFullMs: positiveInteger('health.maxQueueFullMs', maxQueueFullMs),
  };
}

import { HealthOptions, InvalidBrokerOptionsError, MetricsOptions } from '@mmmq/broker';
import { resolveHealthOptions, resolveMetricsOptions } from '@mmmq/broker/internal';

/** The variables of one module-shaping option: its switch and its path. */
interface EndpointVariables {
  /** `on` (default) or `off`. */
  enabled: string;
  path: string;
}

export const METRICS_VARIABLES: EndpointVariables = { enabled: 'MMMQ_METRICS', path: 'MMMQ_METRICS_PATH' };
export const HEALTH_VARIABLES: EndpointVariables = { enabled: 'MMMQ_HEALTH', path: 'MMMQ_HEALTH_PATH' };

/**
 * The `metrics` option from `MMMQ_METRICS` (`on`/`off`) and `MMMQ_METRICS_PATH`, checked as the option would be,
 * naming the variable; undefined when neither is set (the module's default: on, at `/metrics`).
 *
 * @throws InvalidBrokerOptionsError
 */
export function readMetrics(env: NodeJS.ProcessEnv): MetricsOptions | undefined {
  return readEndpoint(env, METRICS_VARIABLES, resolveMetricsOptions);
}

/** The `health` option from `MMMQ_HEALTH` (`on`/`off`) and `MMMQ_HEALTH_PATH`; as {@link readMetrics}. */
export function readHealth(env: NodeJS.ProcessEnv): HealthOptions | undefined {
  return readEndpoint(env, HEALTH_VARIABLES, resolveHealthOptions);
}

function readEndpoint(
  env: NodeJS.ProcessEnv,
  variables: EndpointVariables,
  resolve: (options: { enabled?: boolean; path?: string }) => unknown,
): { enabled?: boolean; path?: string } | undefined {
  const switchValue = env[variables.enabled];
  const path = env[variables.path];
  if (switchValue === undefined && path === undefined) return undefined;
  if (switchValue !== undefined && switchValue !== 'on' && switchValue !== 'off') {
    throw new InvalidBrokerOptionsError(`${variables.enabled} must be on or off, got ${JSON.stringify(switchValue)}`);
  }
  if (switchValue === 'off') {
    // A path for an endpoint that is off is a mistake in one of the two.
    if (path !== undefined) throw new InvalidBrokerOptionsError(`${variables.path} is set, but ${variables.enabled}=off`);
    return { enabled: false };
  }
  if (path === undefined) return { enabled: true };
  try {
    resolve({ path });
  } catch (error) {
    throw new InvalidBrokerOptionsError(`${variables.path}: ${(error as Error).message}`, { cause: error });
  }
  return { enabled: true, path };
}

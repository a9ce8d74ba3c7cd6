import { InvalidBrokerOptionsError, TopicsOptions } from '@mmmq/broker';
import { resolveTopicsOptions } from '@mmmq/broker/internal';

/** The `topics` option (retention, limits, expiry, delivery mode; defaults and per-pattern overrides) as JSON. */
export const TOPICS_VARIABLE = 'MMMQ_TOPICS';

/**
 * `MMMQ_TOPICS` parsed and checked as the `topics` option would be, naming the variable; undefined when unset.
 *
 * @throws InvalidBrokerOptionsError
 */
export function readTopics(env: NodeJS.ProcessEnv): TopicsOptions | undefined {
  const text = env[TOPICS_VARIABLE];
  if (text === undefined) return undefined;
  let topics: TopicsOptions;
  try {
    topics = JSON.parse(text) as TopicsOptions;
  } catch (error) {
    throw new InvalidBrokerOptionsError(`${TOPICS_VARIABLE} must be JSON: ${(error as Error).message}`, { cause: error });
  }
  try {
    resolveTopicsOptions(topics);
  } catch (error) {
    throw new InvalidBrokerOptionsError(`${TOPICS_VARIABLE}: ${(error as Error).message}`, { cause: error });
  }
  return topics;
}

import { DEFAULT_TIMEOUT_MS, type MmmqProducerOptions } from '@mmmq/producer';
import { InvalidOutboxOptionsError } from '../errors/invalid-outbox-options.error';
import { DEFAULT_RELAY_PRODUCER_MAX_RETRY_COUNT, DEFAULT_RELAY_PRODUCER_MAX_RETRY_DELAY_MS } from './outbox-relay.options';

/** The producer settings that bound how long one publish takes. */
export interface PublishBounds {
  maxRetryCount: number;
  maxRetryDelayMs: number;
  timeoutMs: number;
}

/**
 * The longest one publish takes: every attempt times out and every wait between two is the longest allowed
 * (the producer caps its backoff and the broker's `Retry-After` at `maxRetryDelayMs`).
 */
export function publishWorstCaseMs({ maxRetryCount, maxRetryDelayMs, timeoutMs }: PublishBounds): number {
  return (maxRetryCount + 1) * timeoutMs + maxRetryCount * maxRetryDelayMs;
}

/**
 * The options of the producer the relay makes: each of `maxRetryCount`, `maxRetryDelayMs` and `timeoutMs` not given
 * is chosen so that one publish, retries included, ends within half a lease; otherwise the lease could expire
 * mid-publish and a second relay publish the same rows at the same time. Values that are not numbers are left to
 * the producer's own checks.
 * @param where the relay options' name in messages: `relay`
 * @throws InvalidOutboxOptionsError when the settings let one publish last `leaseMs` or longer
 */
export function relayProducerOptions(where: string, given: MmmqProducerOptions, leaseMs: number): MmmqProducerOptions {
  const maxRetryCount = given.maxRetryCount ?? DEFAULT_RELAY_PRODUCER_MAX_RETRY_COUNT;
  const maxRetryDelayMs = given.maxRetryDelayMs ?? Math.min(DEFAULT_RELAY_PRODUCER_MAX_RETRY_DELAY_MS, Math.floor(leaseMs / 10));
  if (!isCount(maxRetryCount) || !isCount(maxRetryDelayMs)) return given;
  const fitting = Math.floor((leaseMs / 2 - maxRetryCount * maxRetryDelayMs) / (maxRetryCount + 1));
  const timeoutMs = given.timeoutMs ?? Math.max(1, Math.min(DEFAULT_TIMEOUT_MS, fitting));
  if (!isCount(timeoutMs)) return given;
  const bounds = { maxRetryCount, maxRetryDelayMs, timeoutMs };
  const worstCaseMs = publishWorstCaseMs(bounds);
  if (worstCaseMs >= leaseMs) {
    const producer = `${where}.producer`;
    throw new InvalidOutboxOptionsError(
      `${where}.leaseMs (${leaseMs}) must be longer than one publish of the relay's producer, which can take ` +
        `(maxRetryCount + 1) × timeoutMs + maxRetryCount × maxRetryDelayMs = ${worstCaseMs} ms with ${producer}.maxRetryCount ` +
        `${maxRetryCount}, ${producer}.maxRetryDelayMs ${maxRetryDelayMs} and ${producer}.timeoutMs ${timeoutMs}: a lease that ` +
        `expires mid-publish lets another relay publish the same rows. Raise ${where}.leaseMs or lower those (left out, ` +
        'they are fitted to the lease)',
    );
  }
  return { ...given, ...bounds };
}

/** Values that are not counts are left as given, for the producer's own checks to refuse in its words. */
function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

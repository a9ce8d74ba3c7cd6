import { describeValue } from './errors/describe-value';
import { MmmqValidationError } from './errors/mmmq-validation-error';
import { isTimePosition, parseIsoTime, TimePosition } from './seek-position';

/**
 * Where a consumer's new subscription starts when it has no checkpoint yet: the oldest retained message, the tail
 * (only what is published from then on), or the first message published at or after a time.
 */
export type StartFrom = 'earliest' | 'latest' | TimePosition;

/** How the choices read in an error message. */
export const START_FROM_CHOICES = '"earliest", "latest" or {"time": "<ISO 8601 with a zone>"}';

/** Whether `input` is a valid `startFrom` (a time must parse as ISO 8601 with a zone). */
export function isStartFrom(input: unknown): input is StartFrom {
  if (input === 'earliest' || input === 'latest') return true;
  if (!isTimePosition(input)) return false;
  try {
    parseIsoTime('time', input.time);
    return true;
  } catch {
    return false;
  }
}

/**
 * A `startFrom` as given (absent: undefined), naming `field` when it is invalid.
 * @throws MmmqValidationError
 */
export function parseStartFrom(field: string, input: unknown): StartFrom | undefined {
  if (input === undefined || isStartFrom(input)) return input === undefined ? undefined : copyOf(input);
  throw new MmmqValidationError(`${field} must be ${START_FROM_CHOICES}, got ${describeValue(input)}`);
}

/** The same start: equal names, or times naming the same instant (`Z` and `+00:00` alike). */
export function sameStartFrom(a: StartFrom | undefined, b: StartFrom | undefined): boolean {
  if (typeof a !== 'object' || typeof b !== 'object') return a === b;
  return Date.parse(a.time) === Date.parse(b.time);
}

function copyOf(startFrom: StartFrom): StartFrom {
  return typeof startFrom === 'object' ? { time: startFrom.time } : startFrom;
}

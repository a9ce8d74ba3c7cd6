import { describeValue } from './errors/describe-value';
import { MmmqValidationError } from './errors/mmmq-validation-error';

/**
 * Where a seek moves a subscription (docs/delivery.md, "Replay and seek"): its topic's oldest retained message, its
 * end (only what is published from now on), an offset, or the first message published at or after a time.
 */
export type SeekPosition = 'beginning' | 'end' | { offset: number } | { time: string };

/** A point in time as the wire carries it: `{"time": "2026-12-07T10:00:00Z"}` (ISO 8601, with a zone). */
export interface TimePosition {
  time: string;
}

/**
 * ISO 8601 date and time with seconds and a zone (`Z` or `±hh:mm`), fractions optional: `Date.parse` alone also
 * takes local times and loose forms, which would seek to a different moment on each machine.
 */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The epoch milliseconds of an ISO 8601 time with a zone, naming `field` when it is not one.
 * @throws MmmqValidationError
 */
export function parseIsoTime(field: string, input: unknown): number {
  const at = typeof input === 'string' && ISO_TIME.test(input) ? Date.parse(input) : NaN;
  if (Number.isNaN(at)) {
    throw new MmmqValidationError(`${field} must be an ISO 8601 time with a zone (2026-12-07T10:00:00Z), got ${describeValue(input)}`);
  }
  return at;
}

/** Whether `input` is `{"time": …}` and nothing else (its value not checked yet). */
export function isTimePosition(input: unknown): input is TimePosition {
  return typeof input === 'object' && input !== null && !Array.isArray(input) && Object.keys(input).join() === 'time';
}

/**
 * A seek's `to`: `"beginning"`, `"end"`, `{"offset": n}` or `{"time": ISO}`, naming `field` when it is none of them.
 * @throws MmmqValidationError
 */
export function parseSeekPosition(field: string, input: unknown): SeekPosition {
  if (input === 'beginning' || input === 'end') return input;
  if (isTimePosition(input)) {
    parseIsoTime(`${field}.time`, input.time);
    return { time: input.time };
  }
  if (typeof input === 'object' && input !== null && !Array.isArray(input) && Object.keys(input).join() === 'offset') {
    const offset = (input as { offset: unknown }).offset;
    if (typeof offset === 'number' && Number.isSafeInteger(offset) && offset >= 0) return { offset };
    throw new MmmqValidationError(`${field}.offset must be a non-negative integer, got ${describeValue(offset)}`);
  }
  throw new MmmqValidationError(
    `${field} must be "beginning", "end", {"offset": n} or {"time": "<ISO 8601>"}, got ${describeValue(input)}`,
  );
}

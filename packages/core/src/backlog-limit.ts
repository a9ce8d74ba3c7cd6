import { MmmqValidationError } from './errors/mmmq-validation-error';

/**
 * What a subscription does when its backlog reaches a dispatcher's `maxBacklog` (docs/destinations.md, "Subscription
 * backlog limits"): refuse publishes to its topic with 429 (`reject`), settle its oldest messages undelivered
 * (`dropOldest`), or dead-letter them with reason `BACKLOG_LIMIT` (`deadLetter`).
 */
export type BacklogOverflow = 'reject' | 'dropOldest' | 'deadLetter';
export const BACKLOG_OVERFLOWS: readonly BacklogOverflow[] = ['reject', 'dropOldest', 'deadLetter'];
/** Refusing publishes loses nothing; dropping is for consumers that only want recent messages, so it is asked for. */
export const DEFAULT_BACKLOG_OVERFLOW: BacklogOverflow = 'reject';
/** The largest `maxBacklog`: 2^32 − 1, the most offsets a subscription snapshot can express past its cursor. */
export const MAX_MAX_BACKLOG = 0xffff_ffff;

/** A subscription's limit: at most `maxBacklog` messages of its topic not yet settled by it. */
export interface BacklogLimit {
  maxBacklog: number;
  overflow: BacklogOverflow;
}

/**
 * Checks a dispatcher's `maxBacklog` (absent: no limit) and `backlogOverflow` (needs a limit; default
 * {@link DEFAULT_BACKLOG_OVERFLOW}), naming the field in the error.
 * @throws MmmqValidationError
 */
export function parseBacklogLimit(maxBacklog: unknown, overflow: unknown): BacklogLimit | undefined {
  if (maxBacklog === undefined) {
    if (overflow !== undefined) throw new MmmqValidationError('backlogOverflow needs maxBacklog');
    return undefined;
  }
  if (typeof maxBacklog !== 'number' || !Number.isSafeInteger(maxBacklog) || maxBacklog < 1 || maxBacklog > MAX_MAX_BACKLOG) {
    throw new MmmqValidationError(`maxBacklog must be an integer from 1 to ${MAX_MAX_BACKLOG}, got ${JSON.stringify(maxBacklog)}`);
  }
  if (overflow !== undefined && !BACKLOG_OVERFLOWS.includes(overflow as BacklogOverflow)) {
    throw new MmmqValidationError(
      `backlogOverflow must be ${BACKLOG_OVERFLOWS.map((value) => JSON.stringify(value)).join(', ')}, got ${JSON.stringify(overflow)}`,
    );
  }
  return { maxBacklog, overflow: (overflow as BacklogOverflow | undefined) ?? DEFAULT_BACKLOG_OVERFLOW };
}

import { MmmqValidationError } from '@mmmq/core';

/**
 * What a subscription does when its backlog reaches `maxBacklog`: refuse publishes to its topic (429), settle its
 * oldest messages unread (`dropOldest`), or dead-letter them (`deadLetter`, reason `BACKLOG_LIMIT`).
 */
export type BacklogOverflow = 'reject' | 'dropOldest' | 'deadLetter';
export const BACKLOG_OVERFLOWS: readonly BacklogOverflow[] = ['reject', 'dropOldest', 'deadLetter'];
/** Refusing publishes loses nothing; dropping is for consumers that only want recent messages, so it is asked for. */
export const DEFAULT_BACKLOG_OVERFLOW: BacklogOverflow = 'reject';
/** The largest `maxBacklog`: 2^32 − 1, the most offsets a subscription snapshot can express past its cursor. */
export const MAX_MAX_BACKLOG = 0xffff_ffff;
/** The dead-letter reason of a message dropped by `backlogOverflow: 'deadLetter'`. */
export const BACKLOG_LIMIT_REASON = 'BACKLOG_LIMIT';

/** A subscription's limit: at most `maxBacklog` messages of its topic not yet settled by it. */
export interface BacklogLimit {
  maxBacklog: number;
  overflow: BacklogOverflow;
}

/** `maxBacklog` (absent: no limit) and `backlogOverflow` of a dispatcher's JSON; the overflow needs a limit. */
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

/** The JSON fields of a limit, none without one. */
export function backlogLimitJson(limit: BacklogLimit | undefined): { maxBacklog?: number; backlogOverflow?: BacklogOverflow } {
  return limit === undefined ? {} : { maxBacklog: limit.maxBacklog, backlogOverflow: limit.overflow };
}

export function sameBacklogLimit(a: BacklogLimit | undefined, b: BacklogLimit | undefined): boolean {
  return a?.maxBacklog === b?.maxBacklog && a?.overflow === b?.overflow;
}

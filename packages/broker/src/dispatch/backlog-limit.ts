import { BacklogLimit, BacklogOverflow } from '@mmmq/core';

export { type BacklogLimit, type BacklogOverflow, DEFAULT_BACKLOG_OVERFLOW, parseBacklogLimit } from '@mmmq/core';
/** The dead-letter reason of a message dropped by `backlogOverflow: 'deadLetter'`. */
export const BACKLOG_LIMIT_REASON = 'BACKLOG_LIMIT';

/** The JSON fields of a limit, none without one. */
export function backlogLimitJson(limit: BacklogLimit | undefined): { maxBacklog?: number; backlogOverflow?: BacklogOverflow } {
  return limit === undefined ? {} : { maxBacklog: limit.maxBacklog, backlogOverflow: limit.overflow };
}

export function sameBacklogLimit(a: BacklogLimit | undefined, b: BacklogLimit | undefined): boolean {
  return a?.maxBacklog === b?.maxBacklog && a?.overflow === b?.overflow;
}

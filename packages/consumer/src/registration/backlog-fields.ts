import type { ListenerDefinition } from '../listener/listener-definition';
import type { BacklogFields, DispatcherJson } from './dispatcher-api.client';

/** The dispatcher fields of a listener's backlog limit; none without one. */
export function backlogFieldsOf(listener: ListenerDefinition): BacklogFields {
  const limit = listener.backlogLimit;
  return limit === undefined ? {} : { maxBacklog: limit.maxBacklog, backlogOverflow: limit.overflow };
}

/** Whether the broker's dispatcher has the limit wanted (a broker that predates limits shows none). */
export function sameBacklogFields(existing: DispatcherJson, wanted: BacklogFields): boolean {
  return existing.maxBacklog === wanted.maxBacklog && existing.backlogOverflow === wanted.backlogOverflow;
}

import type { MemberLimits } from '@mmmq/core';
import type { ListenerDefinition } from '../listener/listener-definition';
import type { DispatcherJson } from './dispatcher-api.client';

/**
 * The dispatcher's member limits as this listener registers them: its own, and for one it leaves out, what the
 * dispatcher has (an operator may have set it with the HTTP API; `exclusive` is `maxActiveMembers: 1` there).
 */
export function memberLimitFieldsOf(listener: ListenerDefinition, existing: DispatcherJson | undefined): MemberLimits {
  const maxActiveMembers = listener.maxActiveMembers ?? existing?.maxActiveMembers ?? (existing?.exclusive === true ? 1 : undefined);
  const maxMembers = listener.maxMembers ?? existing?.maxMembers;
  return { ...(maxActiveMembers === undefined ? {} : { maxActiveMembers }), ...(maxMembers === undefined ? {} : { maxMembers }) };
}

/** Whether the dispatcher has the limits the listener sets (those it leaves out are not compared). */
export function sameMemberLimits(existing: DispatcherJson, listener: ListenerDefinition): boolean {
  const active = existing.maxActiveMembers ?? (existing.exclusive === true ? 1 : undefined);
  return (
    (listener.maxActiveMembers === undefined || active === listener.maxActiveMembers) &&
    (listener.maxMembers === undefined || existing.maxMembers === listener.maxMembers)
  );
}

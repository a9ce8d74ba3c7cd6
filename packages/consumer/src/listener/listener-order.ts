import type { MemberLimits } from '@mmmq/core';

/**
 * A listener's `ordered` setting: `{ ordered: false }` when it gives up the order of its pushes, else nothing (the
 * broker's default). Not with `maxActiveMembers: 1`, the broker's `exclusive`, which is strictly ordered.
 * @returns the message of the error to throw, or the field to send
 */
export function listenerOrderOf(ordered: unknown, limits: MemberLimits): { ordered?: false } | string {
  if (ordered === undefined || ordered === true) return {};
  if (ordered !== false) return `ordered must be true or false, got ${JSON.stringify(ordered)}`;
  if (limits.maxActiveMembers === 1) {
    return "ordered: false cannot go with maxActiveMembers 1 (the broker's exclusive), which is strictly ordered: give one of them";
  }
  return { ordered: false };
}

import { MmmqValidationError } from './errors/mmmq-validation-error';

/** The largest `maxActiveMembers` and `maxMembers`. */
export const MAX_MEMBERS_LIMIT = 10_000;

/**
 * How many members of a consumer id receive at once (`maxActiveMembers`: the first that many live members in join
 * order; the others wait as ordered backups) and how many it admits (`maxMembers`). Absent: no limit.
 */
export interface MemberLimits {
  maxActiveMembers?: number;
  maxMembers?: number;
}

/** Checks a dispatcher's or a listener's member limits (each absent or an integer from 1), naming the field at fault. */
export function parseMemberLimits(maxActiveMembers: unknown, maxMembers: unknown): MemberLimits {
  const active = countField('maxActiveMembers', maxActiveMembers);
  const members = countField('maxMembers', maxMembers);
  if (active !== undefined && members !== undefined && members < active) {
    throw new MmmqValidationError(`maxMembers (${members}) must be at least maxActiveMembers (${active})`);
  }
  return { ...(active === undefined ? {} : { maxActiveMembers: active }), ...(members === undefined ? {} : { maxMembers: members }) };
}

function countField(field: string, input: unknown): number | undefined {
  if (input === undefined) return undefined;
  if (typeof input === 'number' && Number.isSafeInteger(input) && input >= 1 && input <= MAX_MEMBERS_LIMIT) return input;
  throw new MmmqValidationError(`${field} must be an integer from 1 to ${MAX_MEMBERS_LIMIT}, got ${JSON.stringify(input)}`);
}

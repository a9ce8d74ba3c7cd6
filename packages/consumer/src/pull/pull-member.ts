import { hostname } from 'node:os';

/** What a member id may hold (the broker's rule). */
export const PULL_MEMBER_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
const MEMBER_MAX_LENGTH = 128;

/**
 * The default member id of this process: `{app}:{hostname}:{pid}` (`mmmq` without `app`), characters the
 * broker does not accept replaced by `-`, and the host name shortened so the whole fits in 128 characters.
 * It changes with every process, so a restarted instance never claims the leases of the one before it.
 */
export function defaultPullMember(app: string | undefined, host: string = hostname(), pid: number = process.pid): string {
  const clean = (text: string) => text.replace(/[^A-Za-z0-9._:-]/g, '-');
  const prefix = clean(app ?? 'mmmq');
  const suffix = `:${pid}`;
  const room = Math.max(1, MEMBER_MAX_LENGTH - prefix.length - suffix.length - 1);
  return `${prefix}:${clean(host).slice(0, room) || 'host'}${suffix}`.slice(0, MEMBER_MAX_LENGTH);
}

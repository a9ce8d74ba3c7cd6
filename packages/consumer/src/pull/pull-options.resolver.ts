import { InvalidConsumerOptionsError } from '../errors/invalid-consumer-options.error';
import {
  DEFAULT_PULL_MAX_LEASE_EXTENSION_MS,
  DEFAULT_PULL_PREFETCH,
  DEFAULT_PULL_WAIT_MS,
  MAX_PULL_ACK_TIMEOUT_MS,
  MAX_PULL_PREFETCH,
  MAX_PULL_WAIT_MS,
  MIN_PULL_ACK_TIMEOUT_MS,
} from '../config/mmmq-consumer.options';
import { describe, integerInRange, plainObject, refuseUnknownFields } from '../support/option-checks';
import { defaultPullMember, PULL_MEMBER_PATTERN } from './pull-member';
import type { ResolvedPull } from '../config/resolved-consumer-options';

const PULL_FIELDS = new Set(['prefetch', 'waitMs', 'member', 'ackTimeoutMs', 'maxLeaseExtensionMs']);

/**
 * @param pull the `pull` option as given
 * @throws InvalidConsumerOptionsError naming the option
 */
export function resolvePull(pull: unknown, app: string | undefined): ResolvedPull {
  const record = plainObject('pull', pull ?? {});
  refuseUnknownFields('pull', record, PULL_FIELDS);
  const member = record.member ?? defaultPullMember(app);
  if (typeof member !== 'string' || !PULL_MEMBER_PATTERN.test(member)) {
    throw new InvalidConsumerOptionsError(`pull.member must be 1 to 128 characters of [A-Za-z0-9._:-], got ${describe(member)}`);
  }
  return {
    prefetch: integerInRange('pull.prefetch', record.prefetch ?? DEFAULT_PULL_PREFETCH, 1, MAX_PULL_PREFETCH),
    waitMs: integerInRange('pull.waitMs', record.waitMs ?? DEFAULT_PULL_WAIT_MS, 0, MAX_PULL_WAIT_MS),
    member,
    ackTimeoutMs:
      record.ackTimeoutMs === undefined
        ? undefined
        : integerInRange('pull.ackTimeoutMs', record.ackTimeoutMs, MIN_PULL_ACK_TIMEOUT_MS, MAX_PULL_ACK_TIMEOUT_MS),
    maxLeaseExtensionMs: integerInRange(
      'pull.maxLeaseExtensionMs',
      record.maxLeaseExtensionMs ?? DEFAULT_PULL_MAX_LEASE_EXTENSION_MS,
      0,
      MAX_PULL_ACK_TIMEOUT_MS,
    ),
  };
}

import { sameStartFrom } from '@mmmq/core';
import type { Logger } from '@nestjs/common';
import { BrokerRequestError } from '../errors/broker-request.error';
import type { ListenerDefinition } from '../listener/listener-definition';
import { backlogFieldsOf, sameBacklogFields } from './backlog-fields';
import { memberLimitFieldsOf, sameMemberLimits } from './member-limit-fields';
import type { DispatcherApiClient, DispatcherJson, PullDispatcherChange } from './dispatcher-api.client';

/**
 * Makes the broker hold a dispatcher for a pull listener: created without a host when absent (pull only), left
 * alone when it already has this pattern (whatever push hosts other members added), and otherwise given this
 * pattern while its hosts and push settings are kept.
 * @throws BrokerRequestError (retriable when another instance created it meanwhile)
 */
export async function ensurePullDispatcher(client: DispatcherApiClient, listener: ListenerDefinition, logger: Logger): Promise<void> {
  const pattern = listener.pattern.value;
  const wanted: PullDispatcherChange = {
    pattern,
    ...(listener.startFrom === undefined ? {} : { startFrom: listener.startFrom }),
    ...(listener.selector === undefined ? {} : { selector: listener.selector }),
    ...backlogFieldsOf(listener),
  };
  const existing = await client.find(listener.consumerId);
  Object.assign(wanted, memberLimitFieldsOf(listener, existing));
  if (existing === undefined) {
    if (await client.create({ consumerId: listener.consumerId, ...wanted })) {
      logger.log(`Dispatcher ${listener.consumerId} registered for pull: ${pattern}`);
      return;
    }
    throw new BrokerRequestError(`${listener.consumerId} was created by someone else meanwhile (409)`, true);
  }
  const patterns = existing.patterns ?? [existing.pattern];
  if (
    patterns.length === 1 &&
    patterns[0] === pattern &&
    existing.selector === wanted.selector &&
    sameBacklogFields(existing, wanted) &&
    sameMemberLimits(existing, listener) &&
    (wanted.startFrom === undefined || sameStartFrom(existing.startFrom, wanted.startFrom))
  ) {
    logger.log(`Dispatcher ${listener.consumerId} is up to date for pull: ${pattern}`);
    return;
  }
  if (existing.signed === true) {
    // The broker never shows the secret, so a PUT from here would silently unsign the push members' deliveries.
    throw new BrokerRequestError(
      `the dispatcher ${listener.consumerId} has patterns ${patterns.join(', ')} and signed pushes; change it to ${pattern} ` +
        `with PUT /mmmq/dispatchers/${listener.consumerId} (with its signingSecret), then start again`,
      false,
    );
  }
  await client.replace(listener.consumerId, { ...wanted, startFrom: wanted.startFrom ?? existing.startFrom, ...pushSettings(existing) });
  logger.log(`Dispatcher ${listener.consumerId} updated for pull: ${patterns.join(', ')} → ${pattern}`);
}

/** What other (push) members of the group registered, kept as it is. */
function pushSettings(existing: DispatcherJson): Partial<PullDispatcherChange> {
  const hosts = existing.hosts ?? (existing.host === undefined ? [] : [existing.host]);
  return {
    ...(hosts.length === 0 ? {} : { hosts }),
    ...(existing.batchSize === undefined ? {} : { batchSize: existing.batchSize }),
    ...(existing.maxInFlight === undefined ? {} : { maxInFlight: existing.maxInFlight }),
    ...(existing.ordered === false ? { ordered: false } : {}),
  };
}

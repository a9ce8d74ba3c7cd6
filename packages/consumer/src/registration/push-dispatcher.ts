import { Host, sameStartFrom } from '@mmmq/core';
import type { Logger } from '@nestjs/common';
import { BrokerRequestError } from '../errors/broker-request.error';
import type { ListenerDefinition } from '../listener/listener-definition';
import { sameBacklogFields } from './backlog-fields';
import { memberLimitFieldsOf, sameMemberLimits } from './member-limit-fields';
import type { DispatcherApiClient, DispatcherChange, DispatcherJson } from './dispatcher-api.client';

/**
 * Makes the broker hold a push dispatcher for a listener (consumer id, this application's advertised host, the
 * listener's pattern): created when absent, joined (`POST`) when it has the same settings — also when this host is
 * already a member, which tells the broker the host is back so it ends its retry wait — and otherwise updated
 * (`PUT`) with these settings, keeping the other members' hosts.
 * @throws BrokerRequestError (retriable when another instance created it meanwhile)
 */
export async function ensurePushDispatcher(
  client: DispatcherApiClient,
  listener: ListenerDefinition,
  wanted: DispatcherChange & { host: string },
  advertisedHost: Host,
  logger: Logger,
): Promise<void> {
  const existing = await client.find(listener.consumerId);
  wanted = { ...wanted, ...memberLimitFieldsOf(listener, existing) };
  if (existing === undefined || (sameSettings(existing, wanted) && sameMemberLimits(existing, listener))) {
    // A new consumer, or one whose settings this instance shares (its replicas): the POST creates it, adds this host
    // to its members (competing consumers), or — already a member — counts as this host registering again.
    const member = existing !== undefined && hostsOf(existing).some((host) => host.equals(advertisedHost));
    if (await client.create({ consumerId: listener.consumerId, ...wanted })) {
      const what = existing === undefined ? 'registered' : member ? 'registered again' : 'joined by this host';
      logger.log(`Dispatcher ${listener.consumerId} ${what}${describeSigning(wanted)}: ${listener.pattern.value} → ${wanted.host}`);
      return;
    }
    // Created meanwhile with other settings, or with another signing secret: the next attempt updates it.
    if (existing === undefined) throw new BrokerRequestError(`${listener.consumerId} was created by someone else meanwhile (409)`, true);
  }
  // Other settings: this instance's win, and the hosts of the other members stay. The start position only matters
  // for topics the dispatcher has not seen yet; keep the broker's unless set.
  const hosts = [...hostsOf(existing), advertisedHost].filter((host, i, all) => all.findIndex((other) => other.equals(host)) === i);
  const { host: _own, ...settings } = wanted;
  await client.replace(listener.consumerId, {
    ...settings,
    hosts: hosts.map((host) => host.toUrl()),
    startFrom: wanted.startFrom ?? existing.startFrom,
  });
  logger.log(`Dispatcher ${listener.consumerId} updated${describeSigning(wanted)}: ${listener.pattern.value} → ${hosts.join(', ')}`);
}

function describeSigning(wanted: DispatcherChange): string {
  return wanted.signingSecret === undefined ? '' : ' (signed pushes)';
}

/** The push members a dispatcher shows: `hosts`, or its one `host`; unreadable entries are left out. */
function hostsOf(existing: DispatcherJson): Host[] {
  const shown = existing.hosts ?? (existing.host === undefined ? [] : [existing.host]);
  return shown.flatMap((host) => {
    try {
      return [Host.parse(host)];
    } catch {
      return [];
    }
  });
}

/** The same settings as far as the broker shows them, hosts aside: a signed dispatcher matches in everything but the secret. */
function sameSettings(existing: DispatcherJson, wanted: DispatcherChange): boolean {
  return (
    (existing.patterns ?? [existing.pattern]).length === 1 &&
    existing.pattern === wanted.pattern &&
    (existing.batchSize ?? 1) === wanted.batchSize &&
    (existing.maxInFlight ?? 1) === wanted.maxInFlight &&
    (existing.ordered ?? true) === (wanted.ordered ?? true) &&
    (existing.signed === true) === (wanted.signingSecret !== undefined) &&
    existing.selector === wanted.selector &&
    sameBacklogFields(existing, wanted) &&
    (wanted.startFrom === undefined || sameStartFrom(existing.startFrom, wanted.startFrom))
  );
}

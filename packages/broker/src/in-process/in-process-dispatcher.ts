import { sameStartFrom, type HostDefinition, type TransportListener } from '@mmmq/core';
import type { Logger } from '@nestjs/common';
import type { DispatcherInput, Dispatcher } from '../dispatch/dispatcher';
import type { DispatcherDefinitionJson } from '../format/dispatcher-json';
import { DispatcherNotFoundError } from '../dispatch/dispatcher.errors';
import { InProcessListenerError } from './in-process.errors';

/** What an in-process listener asks of its dispatcher: the fields a pull consumer registers. */
type Wanted = Pick<
  DispatcherInput,
  'pattern' | 'startFrom' | 'selector' | 'maxBacklog' | 'backlogOverflow' | 'maxActiveMembers' | 'maxMembers'
>;

/**
 * Makes the broker hold a dispatcher for an in-process listener, as a pull consumer's registration does: created
 * without a host when absent, left alone when it has this pattern, selector, backlog limit and member limits already (whatever
 * push hosts other processes added), and otherwise given them while its hosts and push settings are kept.
 * @throws InProcessListenerError when the dispatcher signs its pushes (its secret cannot be kept by a change from here)
 */
export async function ensureInProcessDispatcher(dispatcher: Dispatcher, listener: TransportListener, logger: Logger): Promise<void> {
  const { consumerId, pattern } = listener;
  const wanted: Wanted = {
    pattern,
    ...(listener.startFrom === undefined ? {} : { startFrom: listener.startFrom }),
    ...(listener.selector === undefined ? {} : { selector: listener.selector }),
    ...(listener.backlogLimit === undefined
      ? {}
      : { maxBacklog: listener.backlogLimit.maxBacklog, backlogOverflow: listener.backlogLimit.overflow }),
    ...(listener.maxActiveMembers === undefined ? {} : { maxActiveMembers: listener.maxActiveMembers }),
    ...(listener.maxMembers === undefined ? {} : { maxMembers: listener.maxMembers }),
  };
  const existing = find(dispatcher, consumerId);
  if (existing === undefined) {
    await dispatcher.add({ consumerId, ...wanted });
    logger.debug(`Dispatcher ${consumerId} registered in process: ${pattern}`);
    return;
  }
  if (upToDate(existing, wanted)) return;
  const patterns = existing.patterns ?? [existing.pattern];
  if (existing.signed === true) {
    throw new InProcessListenerError(
      `the dispatcher ${consumerId} has patterns ${patterns.join(', ')} and signed pushes; change it to ${pattern} ` +
        `with PUT /mmmq/dispatchers/${consumerId} (with its signingSecret), then start again`,
    );
  }
  // Shown by the broker from valid hosts: given back as they are.
  const hosts = (existing.hosts ?? (existing.host === undefined ? [] : [existing.host])) as HostDefinition[];
  await dispatcher.update(consumerId, {
    // Member limits the listener leaves out stay as the dispatcher has them (an operator may have set them).
    maxActiveMembers: existing.maxActiveMembers,
    maxMembers: existing.maxMembers,
    ...wanted,
    startFrom: wanted.startFrom ?? existing.startFrom,
    ...(hosts.length === 0
      ? {}
      : { hosts, batchSize: existing.batchSize, maxInFlight: existing.maxInFlight, ...(existing.ordered === false && { ordered: false }) }),
  });
  logger.log(`Dispatcher ${consumerId} updated for an in-process listener: ${patterns.join(', ')} → ${pattern}`);
}

function find(dispatcher: Dispatcher, consumerId: string): DispatcherDefinitionJson | undefined {
  try {
    return dispatcher.get(consumerId);
  } catch (error) {
    if (error instanceof DispatcherNotFoundError) return undefined;
    throw error;
  }
}

function upToDate(existing: DispatcherDefinitionJson, wanted: Wanted): boolean {
  const patterns = existing.patterns ?? [existing.pattern];
  return (
    patterns.length === 1 &&
    patterns[0] === wanted.pattern &&
    existing.selector === wanted.selector &&
    existing.maxBacklog === wanted.maxBacklog &&
    existing.backlogOverflow === wanted.backlogOverflow &&
    (wanted.maxActiveMembers === undefined || existing.maxActiveMembers === wanted.maxActiveMembers) &&
    (wanted.maxMembers === undefined || existing.maxMembers === wanted.maxMembers) &&
    (wanted.startFrom === undefined || sameStartFrom(existing.startFrom, wanted.startFrom))
  );
}

import {
  BacklogLimit,
  isStartFrom,
  MATCH_ALL_PATTERN,
  MemberLimits,
  MmmqError,
  parseBacklogLimit,
  parseMemberLimits,
  START_FROM_CHOICES,
  TopicPattern,
} from '@mmmq/core';
import { InvalidConsumerOptionsError } from '../errors/invalid-consumer-options.error';
import { InvalidListenerError } from '../errors/invalid-listener.error';
import { ACK_MODES, AckMode, isAckMode } from '../listener/ack-mode';
import type { ResolvedConsumerOptions } from '../config/resolved-consumer-options';
import { DEFAULT_LISTENER_CONCURRENCY } from '../listener/mmmq-listener.options';
import { DeliveryMode } from '../listener/delivery-mode';
import { assertListenerConsumerId, defaultConsumerId } from '../listener/consumer-id.naming';
import type { DiscoveredListener } from '../listener/discovered-listener';
import type { ListenerDefinition } from '../listener/listener-definition';
import { listenerOrderOf } from '../listener/listener-order';
import { checkListenerSelector } from '../listener/listener-selector';
import { LISTENER_OPTION_KEYS } from '../listener/mmmq-listener.options';

const DELIVERY_MODES: ReadonlySet<unknown> = new Set<DeliveryMode>(['push', 'pull']);

/**
 * Names each discovered listener, applies its entry of the `listeners` option over what its decorator says,
 * and checks the result, so that every mistake fails bootstrap with the class and method in the message.
 * @throws InvalidListenerError for a bad pattern, name, consumer id or concurrency, or a duplicate
 * @throws InvalidConsumerOptionsError for a `listeners` entry that names no listener
 */
export function buildListenerDefinitions(
  discovered: readonly DiscoveredListener[],
  options: ResolvedConsumerOptions,
): ListenerDefinition[] {
  const definitions = discovered.map((listener) => buildDefinition(listener, options));
  refuseDuplicates(definitions, 'name', 'listener name', 'set a distinct `name` in @MMMQListener({ name })');
  refuseDuplicates(definitions, 'consumerId', 'consumer id', 'give one of them another consumerId');
  const names = new Set(definitions.map((definition) => definition.name));
  const unmatched = [...options.listeners.keys()].filter((name) => !names.has(name));
  if (unmatched.length > 0) {
    throw new InvalidConsumerOptionsError(
      `listeners[${JSON.stringify(unmatched[0])}] names no listener of this application; known listeners: ` +
        `${[...names].join(', ') || 'none'}`,
    );
  }
  return definitions;
}

function buildDefinition(listener: DiscoveredListener, options: ResolvedConsumerOptions): ListenerDefinition {
  const { where } = listener;
  const unknown = Object.keys(listener.options).filter((key) => !LISTENER_OPTION_KEYS.has(key));
  if (unknown.length > 0) {
    throw new InvalidListenerError(
      `${where}: @MMMQListener has unknown option(s) ${unknown.join(', ')}; allowed are ${[...LISTENER_OPTION_KEYS].join(', ')}`,
    );
  }
  const name = listener.options.name ?? listener.defaultName;
  if (typeof name !== 'string' || name.trim() === '') {
    throw new InvalidListenerError(`${where}: the listener name must be a non-blank string, got ${JSON.stringify(name)}`);
  }
  const config = options.listeners.get(name) ?? {};
  const startFrom = config.startFrom ?? listener.options.startFrom;
  if (startFrom !== undefined && !isStartFrom(startFrom)) {
    throw new InvalidListenerError(`${where}: startFrom must be ${START_FROM_CHOICES}, got ${JSON.stringify(startFrom)}`);
  }
  const ackMode = ackModeOf(listener, config.ackMode ?? listener.options.ackMode ?? options.ackMode);
  const delivery = config.delivery ?? listener.options.delivery;
  const memberLimits = memberLimitsOf(
    listener,
    config.maxActiveMembers ?? listener.options.maxActiveMembers,
    config.maxMembers ?? listener.options.maxMembers,
  );
  const order = listenerOrderOf(config.ordered ?? listener.options.ordered, memberLimits);
  if (typeof order === 'string') throw new InvalidListenerError(`${where}: ${order}`);
  if (delivery !== undefined && !DELIVERY_MODES.has(delivery)) {
    throw new InvalidListenerError(`${where}: delivery must be "push" or "pull", got ${JSON.stringify(delivery)}`);
  }
  return {
    name,
    where,
    consumerId: consumerIdOf(listener, name, config.consumerId, options.app),
    pattern: patternOf(listener),
    concurrency: concurrencyOf(listener, config.concurrency),
    startFrom,
    ackMode,
    inbox: inboxOf(listener, config.inbox ?? listener.options.inbox, ackMode),
    selector: selectorOf(listener, config.selector),
    ...backlogLimitOf(
      listener,
      config.maxBacklog ?? listener.options.maxBacklog,
      config.backlogOverflow ?? listener.options.backlogOverflow,
    ),
    ...memberLimits,
    ...order,
    ...(delivery === undefined ? {} : { delivery }),
    contentType: listener.contentType,
    handle: listener.handle,
  };
}

function patternOf(listener: DiscoveredListener): TopicPattern {
  try {
    return new TopicPattern(listener.options.pattern ?? MATCH_ALL_PATTERN);
  } catch (error) {
    throw wrap(listener.where, 'has an invalid topic pattern', error);
  }
}

function consumerIdOf(listener: DiscoveredListener, name: string, configured: string | undefined, app: string | undefined): string {
  const consumerId = configured ?? listener.options.consumerId ?? defaultConsumerId(app, name);
  try {
    return assertListenerConsumerId(consumerId);
  } catch (error) {
    throw wrap(listener.where, 'has an invalid consumer id', error);
  }
}

/** A `listeners` entry's selector was checked with the options; the decorator's is checked here. */
function selectorOf(listener: DiscoveredListener, configured: string | undefined): string | undefined {
  if (configured !== undefined) return configured;
  const { selector } = listener.options;
  if (selector === undefined) return undefined;
  return checkListenerSelector(`${listener.where}: selector`, selector, (message, cause) => new InvalidListenerError(message, { cause }));
}

/** Each field of a `listeners` entry overrides the decorator's; checked together (an overflow needs a limit). */
function backlogLimitOf(listener: DiscoveredListener, maxBacklog: unknown, overflow: unknown): { backlogLimit?: BacklogLimit } {
  let backlogLimit: BacklogLimit | undefined;
  try {
    backlogLimit = parseBacklogLimit(maxBacklog, overflow);
  } catch (error) {
    throw wrap(listener.where, 'has an invalid backlog limit', error);
  }
  return backlogLimit === undefined ? {} : { backlogLimit };
}

/** Each field of a `listeners` entry overrides the decorator's; checked together (maxMembers ≥ maxActiveMembers). */
function memberLimitsOf(listener: DiscoveredListener, maxActiveMembers: unknown, maxMembers: unknown): MemberLimits {
  try {
    return parseMemberLimits(maxActiveMembers, maxMembers);
  } catch (error) {
    throw wrap(listener.where, 'has invalid member limits', error);
  }
}

function ackModeOf(listener: DiscoveredListener, ackMode: unknown): AckMode {
  if (!isAckMode(ackMode)) {
    throw new InvalidListenerError(`${listener.where}: ackMode must be one of ${ACK_MODES.join(', ')}, got ${JSON.stringify(ackMode)}`);
  }
  return ackMode;
}

function inboxOf(listener: DiscoveredListener, inbox: unknown, ackMode: AckMode): boolean {
  if (inbox === undefined) return false;
  if (typeof inbox !== 'boolean')
    throw new InvalidListenerError(`${listener.where}: inbox must be true or false, got ${JSON.stringify(inbox)}`);
  if (inbox && (ackMode === 'manual' || ackMode === 'none')) {
    // manual: context.ack() would reach the broker before the inbox transaction commits; none: the message is
    // settled on receipt. Either way a rollback or a crash before COMMIT would lose the effect for good.
    throw new InvalidListenerError(
      `${listener.where}: inbox: true cannot be combined with ackMode '${ackMode}'; the inbox acknowledges the message ` +
        `once its transaction commits, so use 'auto' or 'dupsOk'`,
    );
  }
  return inbox;
}

function concurrencyOf(listener: DiscoveredListener, configured: number | undefined): number {
  const concurrency = configured ?? listener.options.concurrency ?? DEFAULT_LISTENER_CONCURRENCY;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new InvalidListenerError(`${listener.where}: concurrency must be a positive integer, got ${concurrency}`);
  }
  return concurrency;
}

function refuseDuplicates(definitions: readonly ListenerDefinition[], key: 'name' | 'consumerId', label: string, remedy: string): void {
  const first = new Map<string, ListenerDefinition>();
  for (const definition of definitions) {
    const earlier = first.get(definition[key]);
    if (earlier !== undefined) {
      const same = earlier.where === definition.where ? ' (the class is provided twice; provide it in one module only)' : '';
      throw new InvalidListenerError(
        `${earlier.where} and ${definition.where} have the same ${label} ${definition[key]}${same}; each listener ` +
          `needs its own, so ${remedy}`,
      );
    }
    first.set(definition[key], definition);
  }
}

function wrap(where: string, what: string, error: unknown): unknown {
  return error instanceof MmmqError ? new InvalidListenerError(`${where} ${what}: ${error.message}`, { cause: error }) : error;
}

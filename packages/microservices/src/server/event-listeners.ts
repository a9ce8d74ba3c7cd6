import {
  assertListenerConsumerId,
  defaultConsumerId,
  ListenerDefinition,
  listenerOrderOf,
  ResolvedConsumerOptions,
  resolveListenerConfig,
  toKebabCase,
} from '@mmmq/consumer/internal';
import { DEFAULT_LISTENER_CONCURRENCY, type ListenerConfig } from '@mmmq/consumer';
import { BacklogLimit, MemberLimits, MmmqError, parseBacklogLimit, parseMemberLimits, TopicPattern } from '@mmmq/core';
import type { MessageHandler } from '@nestjs/microservices';
import { InvalidServerOptionsError } from '../errors/invalid-server-options.error';

/**
 * What this transport reads from `@EventPattern(pattern, extras)`: the same settings as an entry of the `listeners`
 * option, which overrides them. E.g. `@EventPattern('order.*', { consumerId: 'billing.orders', concurrency: 4 })`.
 */
export type MmmqEventPatternExtras = ListenerConfig;

/** Runs a pattern's handler(s) on one message's content, in its context. */
export type PatternRunner = (pattern: string, handler: MessageHandler) => ListenerDefinition['handle'];

/**
 * One listener, and so one dispatcher on the broker, per pattern; several handlers of one pattern (Nest chains
 * them) all run on each message. A `@MessagePattern` handler is a listener too: its result answers a request
 * (`ClientProxy.send()`, `producer.request()`), as any listener's does.
 * @throws InvalidServerOptionsError for a pattern that is no topic pattern, invalid extras, a `listeners` entry that
 *   names no pattern, or two patterns with one consumer id
 */
export function eventListeners(
  handlers: ReadonlyMap<string, MessageHandler>,
  options: ResolvedConsumerOptions,
  run: PatternRunner,
): ListenerDefinition[] {
  const unmatched = [...options.listeners.keys()].filter((pattern) => !handlers.has(pattern));
  if (unmatched.length > 0) {
    throw new InvalidServerOptionsError(
      `listeners[${JSON.stringify(unmatched[0])}] names no @EventPattern or @MessagePattern of this application; known patterns: ` +
        `${[...handlers.keys()].join(', ') || 'none'}`,
    );
  }
  const listeners = [...handlers].map(([pattern, handler]) => definition(pattern, handler, options, run));
  const byId = new Map<string, ListenerDefinition>();
  for (const listener of listeners) {
    const other = byId.get(listener.consumerId);
    if (other !== undefined) {
      throw new InvalidServerOptionsError(
        `${other.where} and ${listener.where} would share consumer id ${listener.consumerId}; give one its own: ` +
          `listeners[${JSON.stringify(listener.pattern.value)}].consumerId or @EventPattern(pattern, { consumerId })`,
      );
    }
    byId.set(listener.consumerId, listener);
  }
  return listeners;
}

function definition(pattern: string, handler: MessageHandler, options: ResolvedConsumerOptions, run: PatternRunner): ListenerDefinition {
  const where = `@${handler.isEventHandler ? 'EventPattern' : 'MessagePattern'}(${JSON.stringify(pattern)})`;
  const topicPattern = parsePattern(where, pattern);
  const extras = extrasOf(where, handler.extras);
  const config = overlay(extras, options.listeners.get(pattern));
  const consumerId = config.consumerId ?? defaultId(where, options.app, pattern);
  return {
    name: pattern,
    where,
    consumerId,
    pattern: topicPattern,
    concurrency: config.concurrency ?? DEFAULT_LISTENER_CONCURRENCY,
    startFrom: config.startFrom,
    ackMode: config.ackMode ?? options.ackMode,
    selector: config.selector,
    ...backlogLimitOf(where, config),
    ...orderOf(where, config),
    contentType: { kind: 'any' },
    handle: run(pattern, handler),
  };
}

/** `listeners[pattern]` over the extras, setting by setting: what it leaves out, the extras keep. */
function overlay(extras: ListenerConfig, configured: ListenerConfig | undefined): ListenerConfig {
  return {
    consumerId: configured?.consumerId ?? extras.consumerId,
    concurrency: configured?.concurrency ?? extras.concurrency,
    startFrom: configured?.startFrom ?? extras.startFrom,
    ackMode: configured?.ackMode ?? extras.ackMode,
    selector: configured?.selector ?? extras.selector,
    maxBacklog: configured?.maxBacklog ?? extras.maxBacklog,
    backlogOverflow: configured?.backlogOverflow ?? extras.backlogOverflow,
    maxActiveMembers: configured?.maxActiveMembers ?? extras.maxActiveMembers,
    maxMembers: configured?.maxMembers ?? extras.maxMembers,
    ordered: configured?.ordered ?? extras.ordered,
  };
}

/** Checked together once overlaid: an overflow from one place may need the limit from the other. */
function backlogLimitOf(where: string, config: ListenerConfig): { backlogLimit?: BacklogLimit } {
  let backlogLimit: BacklogLimit | undefined;
  try {
    backlogLimit = parseBacklogLimit(config.maxBacklog, config.backlogOverflow);
  } catch (error) {
    if (!(error instanceof MmmqError)) throw error;
    throw new InvalidServerOptionsError(`${where}: ${error.message}`, { cause: error });
  }
  return backlogLimit === undefined ? {} : { backlogLimit };
}

/** Member limits and `ordered`, checked together once overlaid: `ordered: false` does not go with `maxActiveMembers: 1`. */
function orderOf(where: string, config: ListenerConfig): MemberLimits & { ordered?: false } {
  const limits = memberLimitsOf(where, config);
  const order = listenerOrderOf(config.ordered, limits);
  if (typeof order === 'string') throw new InvalidServerOptionsError(`${where}: ${order}`);
  return { ...limits, ...order };
}

/** Checked together once overlaid: maxMembers from one place must be at least maxActiveMembers from the other. */
function memberLimitsOf(where: string, config: ListenerConfig): MemberLimits {
  try {
    return parseMemberLimits(config.maxActiveMembers, config.maxMembers);
  } catch (error) {
    if (!(error instanceof MmmqError)) throw error;
    throw new InvalidServerOptionsError(`${where}: ${error.message}`, { cause: error });
  }
}

function parsePattern(where: string, pattern: string): TopicPattern {
  try {
    return TopicPattern.of(pattern);
  } catch (error) {
    if (!(error instanceof MmmqError)) throw error;
    throw new InvalidServerOptionsError(`${where}: the pattern must be an MMMQ topic pattern: ${error.message}`, { cause: error });
  }
}

/** Nest hands every handler its extras (`{}` when none); only the `listeners` settings are known here. */
function extrasOf(where: string, extras: Record<string, unknown> | undefined): ListenerConfig {
  try {
    return resolveListenerConfig(`${where} extras`, extras ?? {});
  } catch (error) {
    throw new InvalidServerOptionsError((error as Error).message, { cause: error });
  }
}

/** `{app}.{pattern}` with `**` → `all`, `*` → `any`, `?` → `one`: `billing` + `order.*` → `billing.order.any`. */
function defaultId(where: string, app: string | undefined, pattern: string): string {
  const name = toKebabCase(pattern.replace(/\*\*/g, 'all').replace(/\*/g, 'any').replace(/\?/g, 'one'));
  const id = defaultConsumerId(app, name);
  try {
    return assertListenerConsumerId(id);
  } catch (error) {
    throw new InvalidServerOptionsError(
      `${where}: no consumer id can be derived (${(error as Error).message}); set listeners[pattern].consumerId`,
      {
        cause: error,
      },
    );
  }
}

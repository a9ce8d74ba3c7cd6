import type { ResolvedConsumerOptions } from '@mmmq/consumer/internal';
import type { AsyncApiOperation } from '@mmmq/core/internal';
import type { MessageHandler } from '@nestjs/microservices';
import { eventListeners } from './event-listeners';
import { scanPatternHandlers } from './pattern-handlers.scan';

/**
 * The `receive` operations of an MmmqServer's handlers for the application's AsyncAPI document: one per pattern, with
 * the dispatcher settings its listener gets, the content type its handler declares, and a reply for a
 * `@MessagePattern` handler. Built from the handlers Nest registered, so it holds before `listen()` too.
 * @param delivery how the handlers receive: `push`, `pull`, `in-process` or the `transport` option's name
 */
export function patternOperations(
  handlers: ReadonlyMap<string, MessageHandler>,
  options: ResolvedConsumerOptions,
  delivery: string,
  controllers: readonly object[],
): AsyncApiOperation[] {
  const declared = scanPatternHandlers(controllers);
  const described = () => () => Promise.resolve(undefined);
  return eventListeners(handlers, options, described).map((listener) => ({
    action: 'receive',
    address: listener.pattern.value,
    source: listener.where,
    payload: declared.get(listener.name)?.payload ?? { kind: 'any' },
    replies: handlers.get(listener.name)?.isEventHandler !== true,
    consumerId: listener.consumerId,
    ackMode: listener.ackMode,
    delivery,
    ...(listener.selector === undefined ? {} : { selector: listener.selector }),
  }));
}

/**
 * The `@EventPattern`/`@MessagePattern` handlers of `controllers` as the `receive` operations an MmmqServer would
 * give them, without a server: for `mmmq asyncapi --patterns`, which describes an application without running its
 * `main.ts`, so without the server's options (no consumer id, ack mode or delivery is named).
 */
export function describePatternHandlers(controllers: readonly object[]): AsyncApiOperation[] {
  return [...scanPatternHandlers(controllers)].map(([pattern, handler]) => ({
    action: 'receive',
    address: pattern,
    source: `@${handler.event ? 'EventPattern' : 'MessagePattern'}(${JSON.stringify(pattern)})`,
    payload: handler.payload,
    replies: !handler.event,
  }));
}

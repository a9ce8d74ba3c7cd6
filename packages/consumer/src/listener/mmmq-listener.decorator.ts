import { MATCH_ALL_PATTERN } from '@mmmq/core';
import type { EventMap, EventTopic } from '@mmmq/core';
import { getListenerMetadata, MMMQ_LISTENER_METADATA } from './listener.metadata';
import type { MessageContext } from './message-context';
import type { MmmqListenerContract } from './mmmq-listener.interface';
import type { MmmqListenerOptions } from './mmmq-listener.options';

/**
 * Declared as a method, not a function type, so that parameters compare bivariantly: with an event map the
 * content is checked against the union of the map's contents, and a handler of one member still fits.
 */
interface ListenerMethod<C> {
  handle(content: C, context: MessageContext): unknown;
}

/** `@MMMQListener({...})`; with an event map, `pattern` must be one of its topics. */
export type MmmqListenerDecoratorOptions<E extends EventMap> = Omit<MmmqListenerOptions, 'pattern'> & { pattern?: EventTopic<E> };

/**
 * Makes the decorated method of a provider or controller a listener of the topics matching `pattern`
 * (default `**`). The method receives the content, converted to and validated against its declared class,
 * and optionally a `MessageContext` as its second parameter; the compiler refuses other signatures.
 *
 * @typeParam E an event map (topic → content type) shared with the producer; it restricts `pattern` to its
 *   topics (so no wildcards) and the content to its content types
 * @example `@MMMQListener('order.*') onOrder(order: OrderDto, context: MessageContext) {}`
 * @example `@MMMQListener<OrderEvents>('order.created') onCreated(order: OrderCreated) {}`
 */
export function MMMQListener<E extends EventMap = EventMap>(
  pattern?: EventTopic<E> | MmmqListenerDecoratorOptions<E>,
): <M extends ListenerMethod<E[EventTopic<E>]>['handle']>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void {
  const options: MmmqListenerOptions =
    typeof pattern === 'object' && pattern !== null ? { ...pattern } : { pattern: pattern ?? MATCH_ALL_PATTERN };
  options.pattern ??= MATCH_ALL_PATTERN;
  return (_target, _key, descriptor) => {
    // Kept as a list, not overwritten, so that a second decorator on one method fails bootstrap loudly
    // instead of silently replacing the first.
    const method = descriptor.value as Function;
    Reflect.defineMetadata(MMMQ_LISTENER_METADATA, [...getListenerMetadata(method), options], method);
  };
}

// The same name for the decorator and the class-style contract, so that users import one symbol for both
// styles: `@MMMQListener('order.*')` and `implements MMMQListener<Order>`.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an alias that merges with the function
export interface MMMQListener<T = unknown> extends MmmqListenerContract<T> {}

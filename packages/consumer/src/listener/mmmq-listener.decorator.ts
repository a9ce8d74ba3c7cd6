import { MATCH_ALL_PATTERN } from '@mmmq/core';
import type { EventMap, EventTopic } from '@mmmq/core';
import { getClassListenerMetadata, getListenerMetadata, MMMQ_LISTENER_CLASS_METADATA, MMMQ_LISTENER_METADATA } from './listener.metadata';
import type { MessageContext } from './message-context';
import type { MmmqListenerContract } from './mmmq-listener.interface';
import type { MmmqListenerOptions } from './mmmq-listener.options';

/**
 * A function type, not a method: TypeScript then compares parameters contravariantly, so a handler of
 * `OrderCancelled` does not fit a topic that carries `OrderCreated`.
 */
type ListenerHandler<C> = (content: C, context: MessageContext) => unknown;

/**
 * The content of an untyped listener: whatever its handler declares. `never` in a parameter position accepts any
 * parameter type (every type is a supertype of `never`), while the context parameter is still checked.
 */
type UntypedContent = never;

/** `@MMMQListener('pattern', {...})`: everything but the pattern. */
export type MmmqListenerDecoratorOptions = Omit<MmmqListenerOptions, 'pattern'>;

/**
 * What `@MMMQListener(...)` returns: it decorates a method, or a class whose `handle()` receives the content.
 * `C` is the content its topics carry (`any` unless typed with {@link MMMQListener.for}).
 */
export interface ListenerDecorator<C> {
  <T extends abstract new (...args: never[]) => { handle: ListenerHandler<C> }>(target: T): void;
  <M extends ListenerHandler<C>>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M>): void;
}

/** What `MMMQListener.for<E>()` returns: `@OrderListener('order.created')`, the topic one of the map's. */
export type TypedListenerDecoratorFactory<E extends EventMap> = <K extends EventTopic<E>>(
  topic: K,
  options?: MmmqListenerDecoratorOptions,
) => ListenerDecorator<E[K]>;

/**
 * Makes a method, or a class with a `handle()` method, a listener of the topics matching `pattern` (default
 * `**`). The handler receives the content, converted to and validated against its declared class, and the
 * `MessageContext`, positionally `(content, context)` or through `@Payload()` and `@Ctx()` (a parameter declared
 * `MessageContext` needs no `@Ctx()`); Nest's pipes, guards, interceptors and exception filters apply. The compiler
 * refuses other signatures. On a class it is optional (a class with `listens()` is a listener too) and carries options.
 *
 * @example `@MMMQListener('order.*') onOrder(order: OrderDto, context: MessageContext) {}`
 * @example `@MMMQListener('order.created', { consumerId: 'billing.orders' }) class OrderListener implements MMMQListener<Order> {…}`
 * @see MMMQListener.for for listeners typed by an event map
 */
export function MMMQListener(options?: MmmqListenerOptions): ListenerDecorator<UntypedContent>;
export function MMMQListener(pattern: string, options?: MmmqListenerDecoratorOptions): ListenerDecorator<UntypedContent>;
export function MMMQListener(
  patternOrOptions?: string | MmmqListenerOptions,
  more?: MmmqListenerDecoratorOptions,
): ListenerDecorator<UntypedContent> {
  const options: MmmqListenerOptions =
    typeof patternOrOptions === 'object' && patternOrOptions !== null ? { ...patternOrOptions } : { ...more, pattern: patternOrOptions };
  return ((target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
    // Kept as lists, not overwritten, so that a second decorator fails bootstrap loudly instead of silently
    // replacing the first.
    if (key === undefined && typeof target === 'function') {
      Reflect.defineMetadata(MMMQ_LISTENER_CLASS_METADATA, [...getClassListenerMetadata(target, true), options], target);
      return;
    }
    const method = descriptor?.value as unknown;
    if (typeof method !== 'function') {
      throw new TypeError(`@MMMQListener decorates a class or a method, not the property ${String(key)}`);
    }
    Reflect.defineMetadata(
      MMMQ_LISTENER_METADATA,
      [...getListenerMetadata(method), { ...options, pattern: options.pattern ?? MATCH_ALL_PATTERN }],
      method,
    );
  }) as ListenerDecorator<UntypedContent>;
}

/**
 * A decorator factory typed by an event map shared with the producer, so that a listener's topic and content
 * type must agree (TypeScript cannot infer the topic when the map is given as `MMMQListener<OrderEvents>(…)`):
 *
 * ```ts
 * const OrderListener = MMMQListener.for<OrderEvents>();
 * @OrderListener('order.created') onCreated(order: OrderCreated) {}    // compiles
 * @OrderListener('order.created') onCreated(order: OrderCancelled) {}  // does not
 * ```
 * Only the map's topics are accepted (so no wildcards).
 */
MMMQListener.for = function typedBy<E extends EventMap>(): TypedListenerDecoratorFactory<E> {
  return (topic, options) => MMMQListener(topic, options);
};

// The same name for the decorator and the class-style contract, so that users import one symbol for both.
/**
 * A class-style listener: a provider whose `handle()` receives the messages of the topics `listens()` returns,
 * found at bootstrap; `@MMMQListener(...)` on the class is optional, for options (or the pattern instead of `listens()`).
 * @example `@Injectable() class RefundListener implements MMMQListener<Refund> { listens() { return 'refund.*'; } handle(@Payload() refund: Refund, context: MessageContext) {} }`
 * @see MmmqListenerContract
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an alias that merges with the function
export interface MMMQListener<T = unknown> extends MmmqListenerContract<T> {}

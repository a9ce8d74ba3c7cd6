import type { Message, MessageHeaders } from '@mmmq/core';

/**
 * The default event map of an untyped `Producer`: any topic, any content. A typed map is an interface (or type)
 * from topic name to content type, shared by producers and listeners:
 *
 * ```ts
 * interface OrderEvents {
 *   'order.created': OrderCreated;
 *   'order.cancelled': { orderId: number; reason: string };
 * }
 * ```
 */
export type AnyEvents = Record<string, unknown>;

/**
 * What an event map must be. `any` rather than `unknown` because an interface has no implicit index signature,
 * so `interface OrderEvents {…}` would not satisfy `Record<string, unknown>`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type EventMap = Record<string, any>;

/** The topics of an event map. */
export type EventTopic<E> = Extract<keyof E, string>;

/** A message whose content has the type the event map gives its topic; a union over `K` when `K` is. */
export type EventMessage<E, K extends EventTopic<E> = EventTopic<E>> = {
  [T in K]: Message<E[T]> & { topic: T };
}[K];

/** Optional parts of a message given beside its topic and content. */
export interface ProduceOptions {
  /**
   * The message id: 1–256 printable ASCII characters, no spaces. A random UUID when absent. Give your own (an
   * order number, an outbox row id) to let consumers drop duplicates across separate `produce()` calls too.
   */
  id?: string;
  /** Typed message properties (name → string, finite number or boolean), delivered with the message. */
  headers?: MessageHeaders;
}

import type { Message } from './message';

/**
 * The default event map of an untyped producer or listener: any topic, any content. A typed map is an interface
 * (or type) from topic name to content type, shared by producers and listeners:
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

/**
 * A map of topic → content class, known at run time: what `MmmqProducerModule`'s `events` option takes to describe
 * the topics it sends to (docs/asyncapi.md). `String`, `Number`, `Boolean` and `Array` stand for JSON primitives and
 * arrays, `Object` for any JSON.
 */
export type EventClasses = Record<string, Function>;

/**
 * The event map (topic → content type) of an {@link EventClasses} map, so one declaration types the producer and
 * describes its topics: `Producer<EventMapOf<typeof orderEvents>>`.
 */
export type EventMapOf<C extends EventClasses> = {
  [K in keyof C]: C[K] extends StringConstructor
    ? string
    : C[K] extends NumberConstructor
      ? number
      : C[K] extends BooleanConstructor
        ? boolean
        : C[K] extends ArrayConstructor
          ? unknown[]
          : C[K] extends ObjectConstructor
            ? unknown
            : C[K] extends abstract new (...args: never[]) => infer I
              ? I
              : unknown;
};

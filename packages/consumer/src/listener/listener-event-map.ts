/**
 * A map from topic name to content type, shared by producers and listeners:
 * `interface OrderEvents { 'order.created': OrderCreated; 'order.cancelled': OrderCancelled }`.
 * `any` rather than `unknown` because an interface has no implicit index signature, so it would not satisfy
 * `Record<string, unknown>`; the untyped default (`Record<string, any>`) accepts any topic and any content.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type EventMap = Record<string, any>;

/** The topics of an event map. */
export type EventTopic<E> = Extract<keyof E, string>;

import { assertConsumerId, InvalidConsumerIdError, Topic, TOPIC_SEGMENT_SEPARATOR } from '@mmmq/core';

/**
 * The broker names a consumer's dead-letter and redrive topics `__dlq.{id}` and `__redrive.{id}`, so an id
 * must leave room for the longer prefix within the 249-character topic limit.
 */
export const LISTENER_CONSUMER_ID_MAX_LENGTH = 239;

const CAMEL_BOUNDARY = /([a-z0-9])([A-Z])/g;
const ACRONYM_BOUNDARY = /([A-Z]+)([A-Z][a-z])/g;
const NOT_ID_CHARACTERS = /[^a-z0-9-]+/g;
const EDGE_DASHES = /^-+|-+$/g;

/**
 * Checks what the broker checks before it accepts a dispatcher: the core allow-list, and usable inside a
 * topic name (no leading, trailing or doubled dots), at most {@link LISTENER_CONSUMER_ID_MAX_LENGTH} long.
 * @throws InvalidConsumerIdError
 */
export function assertListenerConsumerId(id: unknown): string {
  const consumerId = assertConsumerId(id);
  if (consumerId.length > LISTENER_CONSUMER_ID_MAX_LENGTH || !Topic.isValid(consumerId)) {
    throw new InvalidConsumerIdError(
      `Consumer id ${JSON.stringify(consumerId)} cannot start or end with a dot, contain "..", or exceed ` +
        `${LISTENER_CONSUMER_ID_MAX_LENGTH} characters (it also names the broker's dead-letter topic)`,
    );
  }
  return consumerId;
}

/**
 * `OrderListener.onCreated` → `order-listener.on-created`, `ORDER_LISTENER` → `order-listener`: readable in URLs,
 * file names and logs.
 */
export function toKebabCase(name: string): string {
  return name
    .split(TOPIC_SEGMENT_SEPARATOR)
    .map((segment) =>
      segment
        .replace(ACRONYM_BOUNDARY, '$1-$2')
        .replace(CAMEL_BOUNDARY, '$1-$2')
        .toLowerCase()
        .replace(NOT_ID_CHARACTERS, '-')
        .replace(EDGE_DASHES, ''),
    )
    .filter((segment) => segment.length > 0)
    .join(TOPIC_SEGMENT_SEPARATOR);
}

/** `{app}.{listener name in kebab case}`, or just the kebab-case name when there is no app name. */
export function defaultConsumerId(app: string | undefined, listenerName: string): string {
  const name = toKebabCase(listenerName);
  return app === undefined ? name : `${app}${TOPIC_SEGMENT_SEPARATOR}${name}`;
}

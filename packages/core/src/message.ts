import type { DeliveryMode } from './delivery-mode';
import { describeValue } from './errors/describe-value';
import { InvalidMessageError } from './errors/invalid-message-error';
import type { MessageProperties } from './message-properties';

/** Typed message properties, as in JMS, so that selectors can compare numbers and booleans. */
export type HeaderValue = string | number | boolean;
export type MessageHeaders = Record<string, HeaderValue>;

/** A message as a producer gives it; `ttlMs` / `expiresAt` / `priority` as in {@link MessageProperties}. */
export interface Message<T = unknown> extends Omit<MessageProperties, 'deliverAt'> {
  /** As {@link MessageProperties.deliverAt}; a `Date` is sent as its ISO form. */
  deliverAt?: Date | string;
  topic: string;
  content: T;
  id?: string;
  headers?: MessageHeaders;
  /** Default: the topic's delivery mode on the broker (`persistent` unless configured). */
  deliveryMode?: DeliveryMode;
}

// Ids and headers are stored next to every message and echoed on every delivery, so they are bounded.
export const MESSAGE_ID_MAX_LENGTH = 256;
export const HEADERS_MAX_COUNT = 64;
export const HEADER_NAME_MAX_LENGTH = 256;
export const HEADER_VALUE_MAX_LENGTH = 4096;

// Printable ASCII without the space: ids travel in logs, file names of tools and HTTP headers, where
// whitespace, control characters and non-ASCII cause ambiguity or need escaping.
const MESSAGE_ID = /^[\x21-\x7e]+$/;
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/;
// Harmless in a JSON-parsed object, but copying it with `Object.assign` or `obj[name] = value` would
// replace the copy's prototype instead of adding a header.
const PROTOTYPE_KEY = '__proto__';

/**
 * @returns `id`, narrowed to a string
 * @throws InvalidMessageError naming the `id` field
 */
export function assertMessageId(id: unknown): string {
  if (typeof id !== 'string') {
    throw new InvalidMessageError(`Message field "id" must be a string, got ${describeValue(id)}`);
  }
  if (id.length > MESSAGE_ID_MAX_LENGTH) {
    throw new InvalidMessageError(
      `Message field "id" ${describeValue(id)} is too long; the maximum is ${MESSAGE_ID_MAX_LENGTH} characters`,
    );
  }
  if (!MESSAGE_ID.test(id)) {
    throw new InvalidMessageError(`Message field "id" must be non-empty printable ASCII without spaces, got ${describeValue(id)}`);
  }
  return id;
}

/**
 * @returns `headers`, narrowed to {@link MessageHeaders}
 * @throws InvalidMessageError naming the `headers` field and the offending header
 */
export function assertHeaders(headers: unknown): MessageHeaders {
  if (!isPlainObject(headers)) {
    throw new InvalidMessageError(
      `Message field "headers" must be an object of name → string | number | boolean, got ${describeValue(headers)}`,
    );
  }
  const names = Object.keys(headers);
  if (names.length > HEADERS_MAX_COUNT) {
    throw new InvalidMessageError(`Message field "headers" has ${names.length} entries; the maximum is ${HEADERS_MAX_COUNT}`);
  }
  for (const name of names) {
    assertHeaderName(name);
    assertHeaderValue(name, headers[name]);
  }
  return headers as MessageHeaders;
}

function assertHeaderName(name: string): void {
  if (name.length === 0) {
    throw new InvalidMessageError('Message field "headers" has an empty header name');
  }
  if (name.length > HEADER_NAME_MAX_LENGTH) {
    throw new InvalidMessageError(
      `Message field "headers" has the header name ${describeValue(name)}, which is too long; ` +
        `the maximum is ${HEADER_NAME_MAX_LENGTH} characters`,
    );
  }
  if (CONTROL_CHARACTER.test(name) || name === PROTOTYPE_KEY) {
    throw new InvalidMessageError(`Message field "headers" has the invalid header name ${describeValue(name)}`);
  }
}

function assertHeaderValue(name: string, value: unknown): void {
  if (typeof value === 'string') {
    if (value.length > HEADER_VALUE_MAX_LENGTH) {
      throw new InvalidMessageError(
        `Message header ${describeValue(name)} has the value ${describeValue(value)}, which is too long; ` +
          `the maximum is ${HEADER_VALUE_MAX_LENGTH} characters`,
      );
    }
    return;
  }
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
    return;
  }
  throw new InvalidMessageError(
    `Message header ${describeValue(name)} must be a string, a finite number or a boolean, got ${describeValue(value)}`,
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

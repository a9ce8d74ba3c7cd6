import { CORRELATION_ID_LOCATION, MESSAGE_ENVELOPE_SCHEMA, messageHeadersSchema, REPLY_TO_LOCATION } from './asyncapi-headers';
import type { AsyncApiOperation, AsyncApiPayload } from './asyncapi-operation';
import { PayloadSchemas } from './payload-schemas';

/** The AsyncAPI version of the documents MMMQ writes. */
export const ASYNCAPI_VERSION = '3.0.0';

/** The document's `info`. */
export interface AsyncApiInfo {
  title: string;
  version: string;
  description?: string;
}

/** An AsyncAPI 3.0 document, as plain JSON. */
export type AsyncApiDocument = Record<string, unknown>;

/** The channel a `@MessagePattern` handler's result goes to: the requester's inbox, named by the request. */
const REPLIES_CHANNEL = 'replies';

type Json = Record<string, unknown>;

/**
 * Turns the application's declared operations into an AsyncAPI 3.0 document: one channel per topic or pattern (its
 * address, wildcards kept: `order.*`), one message per payload it carries (the DTO's JSON Schema under
 * `components.schemas`, the headers, the envelope as `x-mmmq-envelope`), and one operation per listener (`receive`,
 * with a `reply` for `@MessagePattern` handlers) or declared producer topic (`send`). Keys are derived from the
 * addresses, so the document is the same for the same declarations, whatever their order.
 */
export function buildAsyncApiDocument(
  operations: readonly AsyncApiOperation[],
  info: AsyncApiInfo,
  schemas: PayloadSchemas = new PayloadSchemas(),
): AsyncApiDocument {
  const sorted = [...operations].sort((a, b) => compare(a, b));
  const channelIds = uniqueIds(new Set(sorted.map((operation) => operation.address)), slug);
  const channels: Record<string, Json & { messages: Record<string, Json> }> = {};
  const documented: Record<string, Json> = {};
  const operationIds = new Set<string>();
  let replies = false;
  for (const operation of sorted) {
    const channelId = channelIds.get(operation.address)!;
    const channel = (channels[channelId] ??= channelOf(operation.address));
    const request = operation.replies === true;
    const messageId = `${payloadName(operation.payload)}${request ? 'Request' : ''}`;
    channel.messages[messageId] ??= messageOf(messageId, operation.payload, request, schemas);
    const operationId = unique(`${operation.action}-${channelId}`, operationIds);
    documented[operationId] = {
      action: operation.action,
      channel: { $ref: `#/channels/${channelId}` },
      messages: [{ $ref: `#/channels/${channelId}/messages/${messageId}` }],
      summary: summaryOf(operation),
      ...(request ? { reply: replyOf() } : {}),
      ...extensionsOf(operation),
    };
    replies ||= request;
  }
  if (replies) channels[REPLIES_CHANNEL] = repliesChannel();
  const components = schemas.components();
  return {
    asyncapi: ASYNCAPI_VERSION,
    info: { ...info },
    defaultContentType: 'application/json',
    channels,
    operations: documented,
    ...(Object.keys(components).length > 0 ? { components: { schemas: components } } : {}),
  };
}

function channelOf(address: string): Json & { messages: Record<string, Json> } {
  const wildcard = /[*?]/.test(address);
  return {
    address,
    description: wildcard
      ? `Every topic matching the pattern ${address} (* one segment, ** any number of segments, ? one character).`
      : `The topic ${address}.`,
    messages: {},
  };
}

function messageOf(name: string, payload: AsyncApiPayload, request: boolean, schemas: PayloadSchemas): Json {
  return {
    name,
    contentType: 'application/json',
    payload: schemas.schemaOf(payload),
    headers: messageHeadersSchema(request),
    ...(request ? { correlationId: { location: CORRELATION_ID_LOCATION } } : {}),
    'x-mmmq-envelope': MESSAGE_ENVELOPE_SCHEMA,
  };
}

/** The reply goes to the inbox the request names; its content is the handler's result (any JSON). */
function replyOf(): Json {
  return {
    address: { location: REPLY_TO_LOCATION, description: "The requester's reply inbox, from the request's mmmq-reply-to header." },
    channel: { $ref: `#/channels/${REPLIES_CHANNEL}` },
    messages: [{ $ref: `#/channels/${REPLIES_CHANNEL}/messages/Reply` }],
  };
}

function repliesChannel(): Json & { messages: Record<string, Json> } {
  return {
    address: null,
    description: "A requester's reply inbox (mmmq-reply-to), relayed by the broker (docs/producer.md#request-reply).",
    messages: {
      Reply: {
        name: 'Reply',
        contentType: 'application/json',
        payload: { description: "The handler's result as JSON; a failed handler's reply carries its error's name and message." },
      },
    },
  };
}

function summaryOf(operation: AsyncApiOperation): string {
  if (operation.action === 'send') return `${operation.source} sends to ${operation.address}`;
  return `${operation.source} ${operation.replies ? 'answers requests on' : 'receives'} ${operation.address}`;
}

/** What only MMMQ knows about a listener, as specification extensions. */
function extensionsOf(operation: AsyncApiOperation): Json {
  const extensions: Json = { 'x-mmmq-source': operation.source };
  if (operation.consumerId !== undefined) extensions['x-mmmq-consumer-id'] = operation.consumerId;
  if (operation.ackMode !== undefined) extensions['x-mmmq-ack-mode'] = operation.ackMode;
  if (operation.delivery !== undefined) extensions['x-mmmq-delivery'] = operation.delivery;
  if (operation.selector !== undefined) extensions['x-mmmq-selector'] = operation.selector;
  return extensions;
}

function payloadName(payload: AsyncApiPayload): string {
  switch (payload.kind) {
    case 'any':
      return 'Json';
    case 'primitive':
      return payload.name[0].toUpperCase() + payload.name.slice(1);
    case 'array':
      return 'Array';
    case 'class':
      return payload.type.name;
  }
}

/** `order.*` → `order-any`, `news.**` → `news-all`: the characters AsyncAPI allows in a key. */
function slug(address: string): string {
  return address
    .replace(/\*\*/g, 'all')
    .replace(/\*/g, 'any')
    .replace(/\?/g, 'one')
    .replace(/[^A-Za-z0-9_-]+/g, '-');
}

function uniqueIds(addresses: ReadonlySet<string>, idOf: (address: string) => string): Map<string, string> {
  const taken = new Set<string>([REPLIES_CHANNEL]);
  return new Map([...addresses].map((address) => [address, unique(idOf(address), taken)]));
}

function unique(id: string, taken: Set<string>): string {
  let candidate = id;
  for (let n = 2; taken.has(candidate); n++) candidate = `${id}-${n}`;
  taken.add(candidate);
  return candidate;
}

function compare(a: AsyncApiOperation, b: AsyncApiOperation): number {
  return a.address.localeCompare(b.address) || a.action.localeCompare(b.action) || a.source.localeCompare(b.source);
}

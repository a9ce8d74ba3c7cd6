import { DELIVERY_MODES } from '../delivery-mode';
import { HEADER_VALUE_MAX_LENGTH, MESSAGE_ID_MAX_LENGTH } from '../message';
import { DEFAULT_PRIORITY, MAX_PRIORITY, MIN_PRIORITY } from '../message-properties';
import { REPLY_HEADERS } from '../reply/reply-headers';

/** Where a request's reply goes and which request it answers, as AsyncAPI runtime expressions. */
export const REPLY_TO_LOCATION = `$message.header#/${REPLY_HEADERS.replyTo}`;
export const CORRELATION_ID_LOCATION = `$message.header#/${REPLY_HEADERS.correlationId}`;

/**
 * The headers of an MMMQ message: the application's own (string, number or boolean values) and, on a request, the
 * reply headers the producer's `request()` sets.
 */
export function messageHeadersSchema(request: boolean): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      [REPLY_HEADERS.replyTo]: {
        type: 'string',
        maxLength: HEADER_VALUE_MAX_LENGTH,
        description: "A request's reply inbox, set by the producer's request(): the handler's result is sent there.",
      },
      [REPLY_HEADERS.correlationId]: {
        type: 'string',
        maxLength: HEADER_VALUE_MAX_LENGTH,
        description: 'Which request of the reply inbox the reply answers.',
      },
    },
    ...(request ? { required: [REPLY_HEADERS.replyTo, REPLY_HEADERS.correlationId] } : {}),
    additionalProperties: { type: ['string', 'number', 'boolean'] },
  };
}

/**
 * The fields every MMMQ message carries beside its content and headers (`x-mmmq-envelope` of each message): not
 * headers on the wire, but what a listener reads from its `MessageContext` and a producer may set.
 */
export const MESSAGE_ENVELOPE_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: MESSAGE_ID_MAX_LENGTH, description: "The message id: the producer's, or assigned by the broker." },
    priority: { type: 'integer', minimum: MIN_PRIORITY, maximum: MAX_PRIORITY, default: DEFAULT_PRIORITY },
    deliveryMode: {
      type: 'string',
      enum: [...DELIVERY_MODES],
      description: "persistent: acknowledged once durable; nonPersistent: on receipt. Default: the topic's.",
    },
    ttlMs: { type: 'integer', minimum: 1, description: 'Time to live from acceptance, in ms; not with expiresAt.' },
    expiresAt: { type: 'integer', minimum: 1, description: 'Epoch ms after which it is not delivered; not with ttlMs.' },
  },
  required: ['id'],
};

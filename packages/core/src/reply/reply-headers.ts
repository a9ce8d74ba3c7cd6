/**
 * The headers of a request (a message that expects a reply): where the reply goes, and what it answers. The
 * producer's `request()` sets both; a listener whose message carries them replies with its handler's result. A
 * message without them is an event, handled as ever.
 */
export const REPLY_HEADERS = {
  /** The requester's reply inbox: an opaque, unguessable address (docs/producer.md#request-reply). */
  replyTo: 'mmmq-reply-to',
  /** Which request of that inbox the reply answers; the requester drops a reply whose request is no longer pending. */
  correlationId: 'mmmq-correlation-id',
} as const;

/** The broker's reply relay: `POST` a reply here, and `POST {REPLIES_PATH}/{inbox}/fetch` to collect an inbox's replies. */
export const REPLIES_PATH = '/mmmq/replies';

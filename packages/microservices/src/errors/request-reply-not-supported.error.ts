import { MmmqError } from '@mmmq/core';

/**
 * `send()` (Nest's request/response, `@MessagePattern`) was called on an MMMQ client; nothing was published.
 * MMMQ delivers durable events to listeners that acknowledge them; a reply would need an addressed, short-lived
 * reply channel and would turn a durable at-least-once pipeline into a call answered twice or never.
 */
export class RequestReplyNotSupportedError extends MmmqError {
  constructor() {
    super(
      'MMMQ does not support request/response (ClientProxy.send() and @MessagePattern); nothing was published. ' +
        'MMMQ delivers durable events to listeners that acknowledge them: a reply needs an addressed, short-lived ' +
        'reply channel, and would turn a durable at-least-once pipeline into a call that may be answered twice or ' +
        "never. Use emit() for events, and HTTP, gRPC or Nest's TCP transport for request/response.",
    );
  }
}

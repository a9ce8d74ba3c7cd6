import { MmmqError } from '@mmmq/core';

/** What every request-reply failure names: the request's topic, its message id and its correlation id. */
export interface RequestIdentity {
  topic: string;
  id: string;
  correlationId: string;
}

/** Base of the errors `producer.request()` rejects with once its request was published (or being published). */
export abstract class RequestError extends MmmqError {
  readonly topic: string;
  readonly id: string;
  readonly correlationId: string;

  protected constructor(message: string, request: RequestIdentity, options?: { cause?: unknown }) {
    super(message, options);
    ({ topic: this.topic, id: this.id, correlationId: this.correlationId } = request);
  }
}

/**
 * No reply within `timeoutMs`. The request is durable and may still be handled (once, or again after a crash): a
 * reply that comes later is dropped and counted (`producer.replyStats().late`).
 */
export class RequestTimeoutError extends RequestError {
  constructor(
    request: RequestIdentity,
    readonly timeoutMs: number,
  ) {
    super(
      `No reply to request ${request.id} on ${request.topic} within ${timeoutMs} ms. The request is stored and may still ` +
        'be handled; a later reply is dropped.',
      request,
    );
  }
}

/**
 * The listener that handled the request failed (it threw, or refused the content): its error's name and message,
 * never its stack. The request was settled and is not retried.
 */
export class ReplyError extends RequestError {
  constructor(
    request: RequestIdentity,
    /** The name of the error class the handler threw (`Error`, `NotFoundException`, `RpcException`). */
    readonly remoteName: string,
    /** What the handler's error said. */
    readonly remoteMessage: string,
    /** The JSON details the error carried, if any: a Nest microservice's, what its exception filter answered. */
    readonly remoteData?: unknown,
  ) {
    super(`The handler of request ${request.id} on ${request.topic} failed: ${remoteName}: ${remoteMessage}`, request);
  }
}

/** The producer closed (the application is shutting down) before the reply came. */
export class RequestCancelledError extends RequestError {
  constructor(request: RequestIdentity) {
    super(
      `Request ${request.id} on ${request.topic} was cancelled: the producer closed before its reply came. The request ` +
        'is stored and may still be handled.',
      request,
    );
  }
}

/** This producer cannot receive replies (where it publishes, no reply can reach it); nothing was sent. */
export class RequestReplyUnavailableError extends MmmqError {}

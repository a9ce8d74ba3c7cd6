import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { assertJsonRequest } from './json-request';
import { restoreBodyHeaders } from './raw-body-routes';
import { MMMQ_HTTP_OPTIONS, ResolvedHttpOptions } from '../config/broker-options';
import {
  IncompleteRequestBodyError,
  PayloadTooLargeError,
  RequestBodyConsumedError,
  UnsupportedContentEncodingError,
} from '../publish/publish.errors';

/**
 * The request as a controller sees it. On express it is Node's IncomingMessage; on fastify it is fastify's request,
 * whose IncomingMessage is `raw`. RawBodyRoutes keeps the application's body parsers off it; `rawBody` and `body`
 * are read when something else buffered the bytes anyway.
 */
export interface RequestWithRawBody {
  headers: IncomingHttpHeaders;
  raw?: IncomingMessage;
  rawBody?: Buffer;
  body?: unknown;
}

/**
 * The Node request underneath, whichever HTTP platform the application runs on, with the body headers RawBodyRoutes
 * kept from the application's body parsers put back.
 */
export function incomingMessageOf(request: RequestWithRawBody): IncomingMessage {
  const message = request.raw ?? (request as unknown as IncomingMessage);
  restoreBodyHeaders(message);
  return message;
}

const IDENTITY_ENCODING = 'identity';

/**
 * Reads the JSON body of a broker request as bytes, the same way on every HTTP platform: refusing a missing body
 * (400), a type other than JSON or a compressed body (415), and bodies over `http.maxBodyBytes` (413) as soon as
 * the declared or the received size passes the limit, without buffering more than the limit.
 */
@Injectable()
export class RawBodyReader {
  constructor(@Inject(MMMQ_HTTP_OPTIONS) private readonly options: ResolvedHttpOptions) {}

  /**
   * @throws MissingRequestBodyError, UnsupportedContentTypeError, UnsupportedContentEncodingError
   * @throws PayloadTooLargeError once the declared or received size passes the limit
   * @throws RequestBodyConsumedError when a body parser already read the stream and kept no raw copy
   */
  async read(request: RequestWithRawBody): Promise<Buffer> {
    const message = incomingMessageOf(request);
    assertJsonRequest(message.headers);
    const limit = this.options.maxBodyBytes;
    const encoding = message.headers['content-encoding']?.toLowerCase() ?? IDENTITY_ENCODING;
    if (encoding !== IDENTITY_ENCODING) {
      return discardThenReject(
        message,
        new UnsupportedContentEncodingError(`Content-Encoding ${encoding} is not supported; send the body as is`),
      );
    }
    const buffered = Buffer.isBuffer(request.rawBody) ? request.rawBody : Buffer.isBuffer(request.body) ? request.body : undefined;
    if (buffered) {
      if (buffered.length > limit) throw tooLarge(buffered.length, limit);
      return buffered;
    }
    if (message.readableEnded) {
      throw new RequestBodyConsumedError(
        'The request body was already read before the broker (a middleware of the application that reads ' +
          "bodies of the broker's /mmmq/ routes), so its exact bytes are lost; leave /mmmq/ routes to the broker",
      );
    }
    const declared = Number(message.headers['content-length']);
    if (declared > limit) return discardThenReject(message, tooLarge(declared, limit));
    return collect(message, limit);
  }
}

function tooLarge(bytes: number, limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`Request body of ${bytes} bytes or more exceeds the limit of ${limit} bytes`);
}

function collect(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= limit) {
        chunks.push(chunk);
        return;
      }
      detach();
      chunks.length = 0;
      // Still flowing with no listener: the rest is read and dropped, and the promise settles at its end.
      discardThenReject(request, tooLarge(received, limit)).catch(reject);
    };
    const onEnd = () => {
      detach();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received));
    };
    const onFailure = (error?: Error) => {
      detach();
      reject(new IncompleteRequestBodyError('The connection closed before the whole body arrived', { cause: error }));
    };
    const onClose = () => onFailure();
    const detach = () => {
      request.off('data', onData).off('end', onEnd).off('error', onFailure).off('close', onClose);
    };
    request.on('data', onData).on('end', onEnd).on('error', onFailure).on('close', onClose);
  });
}

/**
 * Answers only after the client has finished sending: closing a socket with unread bytes makes the kernel
 * reset the connection, and the client would lose the error response. Node's `requestTimeout` bounds a
 * client that never stops.
 */
function discardThenReject(request: IncomingMessage, error: Error): Promise<never> {
  return new Promise<never>((_, reject) => {
    const settle = () => reject(error);
    if (request.readableEnded || request.destroyed) {
      settle();
      return;
    }
    request.once('end', settle).once('close', settle).once('error', settle);
    request.resume();
  });
}

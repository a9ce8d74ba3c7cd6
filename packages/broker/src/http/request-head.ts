import type { IncomingMessage } from 'node:http';
import { MmmqValidationError } from '@mmmq/core';
import { TooManyHeaderFieldsError } from '../publish/publish.errors';

/** Most header fields a request to the broker may carry: Node's own default for `server.maxHeadersCount`. */
export const MAX_REQUEST_HEADER_FIELDS = 2000;
/**
 * What the broker sets `server.maxHeadersCount` to: one more than it accepts, so that a request over the limit is
 * seen as such. At Node's default, the fields past the 2,000th are dropped without a word, `Content-Type` and
 * `Content-Length` among them, and the request would be read as something it is not.
 */
export const SERVER_MAX_HEADERS_COUNT = MAX_REQUEST_HEADER_FIELDS + 1;

/**
 * Refuses request heads that Node's parser lets through but that cannot be read one way only: more than
 * {@link MAX_REQUEST_HEADER_FIELDS} fields (431), or two `Host` fields (400, RFC 9112 §3.2).
 */
export function assertUnambiguousHead(request: Pick<IncomingMessage, 'rawHeaders'>): void {
  const { rawHeaders } = request;
  if (rawHeaders.length / 2 > MAX_REQUEST_HEADER_FIELDS) {
    throw new TooManyHeaderFieldsError(`The request has more than ${MAX_REQUEST_HEADER_FIELDS} header fields`);
  }
  let hosts = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() === 'host') hosts++;
  }
  if (hosts > 1) throw new MmmqValidationError(`The request has ${hosts} Host header fields; send exactly one`);
}

import type { IncomingHttpHeaders } from 'node:http';
import { MissingRequestBodyError, UnsupportedContentTypeError } from '../publish/publish.errors';

/** `application/json` and structured-syntax JSON types such as `application/vnd.api+json`. */
const JSON_MEDIA_TYPE = /^application\/(?:json|[a-z0-9!#$&^_.-]+\+json)$/;
const UTF8_CHARSETS: ReadonlySet<string> = new Set(['utf-8', 'utf8']);
const QUOTED_MAX_LENGTH = 100;

/** Whether the headers announce a body: a positive `Content-Length`, or a `Transfer-Encoding`. */
export function hasRequestBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Checks that a request which must carry JSON announces a JSON body.
 * @throws MissingRequestBodyError (400) when it has no body at all
 * @throws UnsupportedContentTypeError (415) when its `Content-Type` is missing or not JSON in UTF-8
 */
export function assertJsonRequest(headers: IncomingHttpHeaders): void {
  if (!hasRequestBody(headers)) {
    throw new MissingRequestBodyError('The request has no body; send a JSON document with Content-Type: application/json');
  }
  const contentType = headers['content-type'];
  if (contentType === undefined) {
    throw new UnsupportedContentTypeError('Content-Type is missing; send the body as Content-Type: application/json');
  }
  const [mediaType, ...parameters] = contentType.split(';');
  if (!JSON_MEDIA_TYPE.test(mediaType.trim().toLowerCase())) {
    throw new UnsupportedContentTypeError(
      `Content-Type ${quote(contentType)} is not supported; send the body as Content-Type: application/json`,
    );
  }
  for (const parameter of parameters) {
    const [name, value = ''] = parameter.split('=');
    const charset = value
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (name.trim().toLowerCase() === 'charset' && !UTF8_CHARSETS.has(charset)) {
      throw new UnsupportedContentTypeError(`Content-Type ${quote(contentType)} is not supported; JSON bodies must be UTF-8`);
    }
  }
}

function quote(text: string): string {
  return JSON.stringify(text.length > QUOTED_MAX_LENGTH ? `${text.slice(0, QUOTED_MAX_LENGTH)}…` : text);
}

import { MmmqValidationError } from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import { incomingMessageOf, RawBodyReader, RequestWithRawBody } from './raw-body.reader';
import { assertJsonRequest, hasRequestBody } from './json-request';

/** Refuses bytes that are not UTF-8 rather than reading them as U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Reads the JSON body of an admin request, whether or not the host application parsed it already. */
@Injectable()
export class JsonBodyReader {
  constructor(private readonly raw: RawBodyReader) {}

  /** @throws MmmqValidationError (400), UnsupportedContentTypeError (415) and whatever {@link RawBodyReader} throws */
  async read(request: RequestWithRawBody): Promise<unknown> {
    const parsed = request.body !== undefined && !Buffer.isBuffer(request.body) && !Buffer.isBuffer(request.rawBody);
    if (parsed) {
      // A host body parser also parses forms, which any web page may send: the type is checked all the same.
      assertJsonRequest(incomingMessageOf(request).headers);
      return request.body;
    }
    const bytes = await this.raw.read(request);
    try {
      return JSON.parse(UTF8.decode(bytes));
    } catch (error) {
      throw new MmmqValidationError(`The request body is not valid UTF-8 JSON: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Like {@link read}, but `absent` when the request has no body at all. */
  async readIfPresent(request: RequestWithRawBody, absent: unknown): Promise<unknown> {
    return hasRequestBody(incomingMessageOf(request).headers) ? this.read(request) : absent;
  }
}

import { MmmqValidationError } from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import { RawBodyReader, RequestWithRawBody } from '../publish/raw-body.reader';

/** Reads the JSON body of an admin request, whether or not the host application parsed it already. */
@Injectable()
export class JsonBodyReader {
  constructor(private readonly raw: RawBodyReader) {}

  async read(request: RequestWithRawBody): Promise<unknown> {
    const parsed = request.body !== undefined && !Buffer.isBuffer(request.body) && !Buffer.isBuffer(request.rawBody);
    if (parsed) return request.body;
    const bytes = await this.raw.read(request);
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      throw new MmmqValidationError(`The request body is not valid JSON: ${(error as Error).message}`, { cause: error });
    }
  }
}

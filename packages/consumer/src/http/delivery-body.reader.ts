import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { DeliveryTooLargeError } from '../errors/delivery-too-large.error';
import { InvalidDeliveryError } from '../errors/invalid-delivery.error';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, ResolvedConsumerOptions } from '../mmmq-consumer-options.resolver';

/**
 * What body parsers may leave on a request: a parsed `body`, and with Nest's `rawBody: true` the bytes. On
 * express this is Node's IncomingMessage; on fastify a FastifyRequest whose `body` fastify parsed.
 */
export interface RequestWithBody extends IncomingMessage {
  body?: unknown;
  rawBody?: Buffer;
}

/**
 * Reads the JSON body of a delivery whether or not the host application parses bodies: a body parser's
 * result is used as it is, otherwise the stream is read here (up to `maxBodyBytes`).
 */
@Injectable()
export class DeliveryBodyReader {
  constructor(@Inject(MMMQ_CONSUMER_RESOLVED_OPTIONS) private readonly options: ResolvedConsumerOptions) {}

  /** @throws InvalidDeliveryError for a body that is not JSON or was consumed without a trace */
  async read(request: RequestWithBody): Promise<unknown> {
    if (Buffer.isBuffer(request.rawBody)) return parse(request.rawBody);
    if (Buffer.isBuffer(request.body) || typeof request.body === 'string') return parse(request.body);
    if (request.body !== undefined) return request.body;
    // Fastify's request is not the stream itself; with no parsed body there, the stream is gone too.
    if (typeof request.on === 'function' && !request.readableEnded) return parse(await this.collect(request));
    throw new InvalidDeliveryError('The request body was read by another middleware and is not available');
  }

  private collect(request: IncomingMessage): Promise<Buffer> {
    const limit = this.options.maxBodyBytes;
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let received = 0;
      request.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received <= limit) chunks.push(chunk);
      });
      // Reading to the end even past the limit lets the 413 reach the broker instead of a connection reset.
      request.on('end', () => {
        if (received > limit) {
          const message = `The delivery body of ${received} bytes exceeds maxBodyBytes (${limit}); raise maxBodyBytes`;
          reject(new DeliveryTooLargeError(message));
        } else {
          resolve(Buffer.concat(chunks, received));
        }
      });
      request.on('error', (error) =>
        reject(new InvalidDeliveryError(`Reading the delivery body failed: ${error.message}`, { cause: error })),
      );
      request.on('close', () => {
        if (!request.readableEnded) reject(new InvalidDeliveryError('The connection closed before the whole body arrived'));
      });
    });
  }
}

function parse(body: Buffer | string): unknown {
  try {
    return JSON.parse(body.toString());
  } catch (error) {
    throw new InvalidDeliveryError(`The delivery body is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

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

/** A delivery body as it arrived: its bytes when they are at hand, else only what a body parser made of them. */
export type ReceivedBody = { bytes: Buffer } | { parsed: unknown };

/**
 * Reads the JSON body of a delivery whether or not the host application parses bodies: the bytes (Nest's
 * `rawBody: true`, or the stream read here, up to `maxBodyBytes`) when they are available, a body parser's result
 * as it is otherwise.
 */
@Injectable()
export class DeliveryBodyReader {
  constructor(@Inject(MMMQ_CONSUMER_RESOLVED_OPTIONS) private readonly options: ResolvedConsumerOptions) {}

  /** @throws InvalidDeliveryError for a body that is not JSON or was consumed without a trace */
  async read(request: RequestWithBody): Promise<unknown> {
    return this.parse(await this.receive(request));
  }

  /** @throws InvalidDeliveryError for a body that was consumed without a trace, or cut off */
  async receive(request: RequestWithBody): Promise<ReceivedBody> {
    if (Buffer.isBuffer(request.rawBody)) return { bytes: request.rawBody };
    if (Buffer.isBuffer(request.body)) return { bytes: request.body };
    if (typeof request.body === 'string') return { bytes: Buffer.from(request.body) };
    if (request.body !== undefined) return { parsed: request.body };
    // Fastify's request is not the stream itself; with no parsed body there, the stream is gone too.
    if (typeof request.on === 'function' && !request.readableEnded) return { bytes: await this.collect(request) };
    throw new InvalidDeliveryError('The request body was read by another middleware and is not available');
  }

  /** @throws InvalidDeliveryError for bytes that are not JSON */
  parse(body: ReceivedBody): unknown {
    return 'bytes' in body ? parse(body.bytes) : body.parsed;
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

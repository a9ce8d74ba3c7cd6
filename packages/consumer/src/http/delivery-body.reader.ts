import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { DeliveryTooLargeError } from '../errors/delivery-too-large.error';
import { InvalidDeliveryError } from '../errors/invalid-delivery.error';
import { MMMQ_CONSUMER_RESOLVED_OPTIONS, ResolvedConsumerOptions } from '../config/resolved-consumer-options';

/**
 * Reads the JSON body of a delivery from the request stream, up to `maxBodyBytes`. Pushes reach the consumer before
 * the application's framework (PushRoute, or a microservice's own server), so no body parser has read them.
 */
@Injectable()
export class DeliveryBodyReader {
  constructor(@Inject(MMMQ_CONSUMER_RESOLVED_OPTIONS) private readonly options: ResolvedConsumerOptions) {}

  /**
   * @throws DeliveryTooLargeError past `maxBodyBytes`
   * @throws InvalidDeliveryError for a body cut off
   */
  read(request: IncomingMessage): Promise<Buffer> {
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

/** @throws InvalidDeliveryError for bytes that are not JSON */
export function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString());
  } catch (error) {
    throw new InvalidDeliveryError(`The delivery body is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

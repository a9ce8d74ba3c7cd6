import { MmmqTransport, MmmqValidationError, PublishedMessage, TransportPublisher, TransportRejectedError } from '@mmmq/core';
import { HttpStatus } from '@nestjs/common';
import { BrokerResponseError } from '../errors/broker-response.error';
import { BrokerUnreachableError } from '../errors/broker-unreachable.error';
import type { OutgoingMessage } from '../outgoing-message';
import { BrokerGateway } from './broker-gateway';

/**
 * Publishes through a transport's publisher (the `transport` option, or the `InMemoryTransport` of
 * `MmmqTestingModule`), reporting its outcome as the producer's retry policy reads a broker's: a message the
 * transport refuses (`MmmqValidationError`) or its other side refused for good (`TransportRejectedError`) as a
 * 400, not retried; anything else, and no answer within `timeoutMs`, as unreachable, retried with the same id.
 */
export class TransportGateway extends BrokerGateway {
  private readonly publisher: TransportPublisher;
  private closed?: Promise<void>;

  constructor(
    private readonly transport: MmmqTransport,
    private readonly timeoutMs: number,
  ) {
    super();
    this.publisher = transport.createPublisher();
  }

  publish(message: OutgoingMessage): Promise<PublishedMessage> {
    return this.attempt(() => this.publisher.publish(message));
  }

  publishBatch(messages: readonly OutgoingMessage[]): Promise<PublishedMessage[]> {
    return this.attempt(() => this.publisher.publishBatch(messages));
  }

  close(): Promise<void> {
    this.closed ??= this.publisher.close();
    return this.closed;
  }

  private async attempt<T>(send: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new BrokerUnreachableError(`The ${this.transport.name} transport did not answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      return await Promise.race([send(), deadline]);
    } catch (error) {
      throw this.failure(error);
    } finally {
      clearTimeout(timer);
    }
  }

  private failure(error: unknown): Error {
    const name = this.transport.name;
    if (error instanceof BrokerUnreachableError) return error;
    if (error instanceof MmmqValidationError || error instanceof TransportRejectedError) {
      const refusal =
        error instanceof MmmqValidationError
          ? `The ${name} transport refused the message`
          : `The ${name} transport's broker refused the message for good`;
      return new BrokerResponseError(
        `${refusal}: ${error.message}`,
        { status: HttpStatus.BAD_REQUEST, reason: error.message },
        { cause: error },
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    return new BrokerUnreachableError(`The ${name} transport could not publish: ${message}`, { cause: error });
  }
}

import {
  MmmqTransport,
  MmmqValidationError,
  PublishedMessage,
  TransportClosedError,
  TransportPublishOptions,
  TransportPublisher,
  TransportRejectedError,
} from '@mmmq/core';
import { HttpStatus } from '@nestjs/common';
import { BrokerResponseError } from '../errors/broker-response.error';
import { BrokerUnreachableError } from '../errors/broker-unreachable.error';
import type { OutgoingMessage } from '../outgoing-message';
import { BrokerGateway } from './broker-gateway';

/**
 * Publishes through a transport's publisher (the `transport` option, or the `InMemoryTransport` of
 * `MmmqTestingModule`), reporting its outcome as the producer's retry policy reads a broker's: a message the
 * transport refuses (`MmmqValidationError`) or its other side refused for good (`TransportRejectedError`) as a
 * 400, a closed publisher (`TransportClosedError`) as a 410, neither retried; anything else, and no answer within
 * `timeoutMs`, as unreachable, retried with the same id. At `timeoutMs` the attempt's signal aborts, so the transport
 * does not send later what the producer already reported as not sent (and retries).
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
    return this.attempt((options) => this.publisher.publish(message, options));
  }

  publishBatch(messages: readonly OutgoingMessage[]): Promise<PublishedMessage[]> {
    return this.attempt((options) => this.publisher.publishBatch(messages, options));
  }

  close(): Promise<void> {
    this.closed ??= this.publisher.close();
    return this.closed;
  }

  private async attempt<T>(send: (options: TransportPublishOptions) => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const abandoned = new AbortController();
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        const error = new BrokerUnreachableError(`The ${this.transport.name} transport did not answer within ${this.timeoutMs} ms`);
        abandoned.abort(error);
        reject(error);
      }, this.timeoutMs);
    });
    try {
      return await Promise.race([send({ signal: abandoned.signal }), deadline]);
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
    if (error instanceof TransportClosedError) {
      return new BrokerResponseError(
        `The ${name} transport's publisher is closed, nothing was sent: ${error.message}`,
        { status: HttpStatus.GONE, reason: error.message },
        { cause: error },
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    return new BrokerUnreachableError(`The ${name} transport could not publish: ${message}`, { cause: error });
  }
}

import {
  MmmqTransport,
  MmmqValidationError,
  type CancelledScheduledMessage,
  type ScheduledMessageRef,
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

/** How a gateway bounds one attempt. */
export type AttemptDeadline =
  /** The publisher was built with the producer's `timeoutMs` and ends every attempt at it itself (the MMMQ broker's). */
  | { kind: 'publisher' }
  /** The gateway ends the attempt at `timeoutMs`, aborting its signal (a transport's publisher). */
  | { kind: 'gateway'; timeoutMs: number };

/**
 * The producer's one way out, whatever the transport: every publish goes through a `TransportPublisher` (the MMMQ
 * broker's HTTP or stream publisher, the `transport` option's, or the `InMemoryTransport` of `MmmqTestingModule`'s),
 * and its outcome reaches the retry policy as a broker's answer. The MMMQ broker's publishers report in those terms
 * already (`BrokerResponseError` with status and Retry-After, `BrokerUnreachableError`), so theirs pass as they are.
 * Otherwise a message the transport refuses (`MmmqValidationError`) or its other side refused for good
 * (`TransportRejectedError`) is a 400, a closed publisher (`TransportClosedError`) a 410, neither retried; anything
 * else, and no answer within `timeoutMs`, is unreachable, retried with the same id. At `timeoutMs` the attempt's
 * signal aborts, so the transport does not send later what the producer already reported as not sent (and retries).
 */
export class TransportGateway {
  private closed?: Promise<void>;

  /**
   * @param name the transport's, for error messages
   */
  constructor(
    private readonly publisher: TransportPublisher,
    private readonly name: string,
    private readonly deadline: AttemptDeadline,
  ) {}

  /** The gateway of a transport's new publisher; each attempt ends at `timeoutMs`. */
  static of(transport: MmmqTransport, timeoutMs: number): TransportGateway {
    return new TransportGateway(transport.createPublisher(), transport.name, { kind: 'gateway', timeoutMs });
  }

  /** The publisher's failure count (see `TransportPublisher.failures`). */
  get failures(): number {
    return this.publisher.failures ?? 0;
  }

  publish(message: OutgoingMessage): Promise<PublishedMessage> {
    // The hot path of the MMMQ broker: its publisher bounds and reports the attempt itself, so nothing is wrapped.
    if (this.deadline.kind === 'publisher') return this.publisher.publish(message);
    return this.attempt(this.deadline.timeoutMs, (options) => this.publisher.publish(message, options));
  }

  publishBatch(messages: readonly OutgoingMessage[]): Promise<PublishedMessage[]> {
    if (this.deadline.kind === 'publisher') return this.publisher.publishBatch(messages);
    return this.attempt(this.deadline.timeoutMs, (options) => this.publisher.publishBatch(messages, options));
  }

  /** @throws MmmqValidationError (nothing sent) when the transport cannot cancel scheduled messages */
  cancelScheduled(topic: string, message: ScheduledMessageRef): Promise<CancelledScheduledMessage> {
    if (!this.publisher.cancelScheduled) {
      return Promise.reject(
        new MmmqValidationError(
          `Cancelling a scheduled message is not supported by the ${this.name} transport` +
            (this.name === 'mmmq' ? ' over the publish stream: give the producer an http(s):// broker URL' : ''),
        ),
      );
    }
    return this.publisher.cancelScheduled(topic, message);
  }

  close(): Promise<void> {
    this.closed ??= this.publisher.close();
    return this.closed;
  }

  private async attempt<T>(timeoutMs: number, send: (options: TransportPublishOptions) => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const abandoned = new AbandonSignal();
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        const error = new BrokerUnreachableError(`The ${this.name} transport did not answer within ${timeoutMs} ms`);
        abandoned.abort(error);
        reject(error);
      }, timeoutMs);
    });
    try {
      return await Promise.race([send(abandoned.options), deadline]);
    } catch (error) {
      throw this.failure(error);
    } finally {
      clearTimeout(timer);
    }
  }

  private failure(error: unknown): Error {
    const name = this.name;
    if (error instanceof BrokerUnreachableError || error instanceof BrokerResponseError) return error;
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

/**
 * An attempt's abort signal, made only if the transport reads it: most publishers (the broker's in process, the
 * in-memory one) never look, and an `AbortController` per publish was 1.5 % of a one-at-a-time produce's CPU.
 */
class AbandonSignal {
  private controller?: AbortController;
  private reason?: unknown;
  private aborted = false;

  readonly options: TransportPublishOptions = Object.defineProperty({}, 'signal', {
    enumerable: true,
    get: () => this.signal(),
  });

  abort(reason: unknown): void {
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }

  private signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }
}

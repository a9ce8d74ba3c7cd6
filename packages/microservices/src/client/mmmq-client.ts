import { describeValue, PublishedMessage } from '@mmmq/core';
import { InvalidProducerOptionsError, Producer } from '@mmmq/producer';
import { createProducer } from '@mmmq/producer/internal';
import { ClientProxy, ReadPacket, Serializer, WritePacket } from '@nestjs/microservices';
import { IdentitySerializer } from '@nestjs/microservices/serializers/identity.serializer';
import { Observable, throwError } from 'rxjs';
import { ClientEventsNotSupportedError } from '../errors/client-events-not-supported.error';
import { RequestReplyNotSupportedError } from '../errors/request-reply-not-supported.error';
import { UnsupportedPatternError } from '../errors/unsupported-pattern.error';
import type { MmmqClientOptions } from './mmmq-client.options';
import { outgoingEvent } from './outgoing-event';

/**
 * A Nest `ClientProxy` that publishes events to MMMQ through a `Producer`:
 * `ClientsModule.register([{ name: 'MMMQ', customClass: MmmqClient, options: { broker: 'http://localhost:8080' } }])`,
 * then `lastValueFrom(client.emit('order.created', order))`.
 *
 * `emit(topic, data)` is Nest's own (hot: it publishes even if nobody subscribes). Its Observable emits the broker's
 * acknowledgement (`PublishedMessage`: id, topic, offset) and completes only once the broker stored the message
 * durably; it errors with the producer's `ProduceError` when the broker did not acknowledge it after the producer's
 * retries (always with the same message id), or with a `MmmqValidationError` for an invalid topic, id, headers or
 * content. Topics are strings; an object pattern errors with {@link UnsupportedPatternError}. To set the message id
 * or headers, emit an {@link MmmqRecord}.
 *
 * Content: with the default serializer (Nest's `IdentitySerializer`) the content published is `data` itself, the
 * same JSON `Producer.produce(topic, data)` sends. A custom `serializer` gets `{ pattern, data }` (the record's
 * data for an `MmmqRecord`); when it returns an object with a `data` key, that value is published, else what it
 * returns.
 *
 * `send()` (request/response) is refused with {@link RequestReplyNotSupportedError}: see that error for why.
 */
export class MmmqClient extends ClientProxy {
  private readonly producer: Producer;

  /** @throws InvalidProducerOptionsError naming the invalid or unknown option */
  constructor(options: MmmqClientOptions) {
    super();
    const { serializer, ...producerOptions } = isObject(options) ? options : { serializer: undefined };
    if (serializer !== undefined && !isSerializer(serializer)) {
      throw new InvalidProducerOptionsError(
        `serializer must be an object with a serialize(value) method, got ${describeValue(serializer)}`,
      );
    }
    // Not an object: the producer's resolver names the problem.
    this.producer = createProducer(isObject(options) ? producerOptions : options);
    this.serializer = serializer ?? new IdentitySerializer();
  }

  /** Nothing to open: the producer connects when it first publishes, and again whenever it must. */
  connect(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Closes the producer: refuses new emits, lets publishes already sent finish, closes its connections.
   * Idempotent; `ClientsModule` calls it on application shutdown.
   */
  close(): Promise<void> {
    return this.producer.close();
  }

  /** The `Producer` this client publishes with. */
  unwrap<T = Producer>(): T {
    return this.producer as T;
  }

  /**
   * Refused: the client has no connection of its own, so no status events to listen to.
   * @throws ClientEventsNotSupportedError
   */
  override on(event: unknown, _callback?: unknown): void {
    throw new ClientEventsNotSupportedError(event);
  }

  /**
   * Refused at once, without connecting or publishing anything: MMMQ has no request/response.
   * @returns an Observable that errors with {@link RequestReplyNotSupportedError}
   */
  override send<TResult = never, TInput = unknown>(_pattern?: unknown, _data?: TInput): Observable<TResult> {
    return throwError(() => new RequestReplyNotSupportedError());
  }

  /** Request/response, which `send()` already refuses: reports the same error, in case Nest calls it directly. */
  protected publish(_packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    callback({ err: new RequestReplyNotSupportedError(), isDisposed: true });
    return () => undefined;
  }

  /** Publishes one emitted event and resolves with the broker's acknowledgement. */
  protected async dispatchEvent<T = PublishedMessage>(packet: ReadPacket): Promise<T> {
    const { pattern, data } = packet;
    if (typeof pattern !== 'string') throw new UnsupportedPatternError(pattern);
    const { content, options } = outgoingEvent(pattern, data, this.serializer);
    return (await this.producer.produce(pattern, content, options)) as T;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSerializer(value: unknown): value is Serializer {
  return isObject(value) && typeof value.serialize === 'function';
}

import { describeValue, PublishedMessage } from '@mmmq/core';
import { InvalidProducerOptionsError, Producer, ReplyError } from '@mmmq/producer';
import { createProducer } from '@mmmq/producer/internal';
import { ClientProxy, ReadPacket, Serializer, WritePacket } from '@nestjs/microservices';
import { IdentitySerializer } from '@nestjs/microservices/serializers/identity.serializer';
import { ClientEventsNotSupportedError } from '../errors/client-events-not-supported.error';
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
 * `send(pattern, data)` (request/response) publishes a request with `producer.request()` and emits its reply: what the
 * `@MessagePattern` (or `@MMMQListener`) handler returned, once the request is durable and handled. A handler's error
 * arrives as Nest's transports deliver it, what its exception filter answered (`{ status: 'error', message }`); no
 * reply within the request timeout (`MmmqRecord`'s `timeoutMs`, default 30 s) errors with `RequestTimeoutError`
 * (docs/microservices.md).
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
   * One `send()`: the request published, its reply (or error) handed to Nest. Unsubscribing does not withdraw the
   * request, which is durable: its reply, if it comes, is dropped as late once the request timed out.
   */
  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    this.request(packet).then(
      (response) => callback({ response, isDisposed: true }),
      (error: unknown) => callback({ err: nestErrorOf(error), isDisposed: true }),
    );
    return () => undefined;
  }

  private async request(packet: ReadPacket): Promise<unknown> {
    const { pattern, data } = packet;
    if (typeof pattern !== 'string') throw new UnsupportedPatternError(pattern);
    const { content, options, timeoutMs } = outgoingEvent(pattern, data, this.serializer);
    return this.producer.request(pattern, content, timeoutMs === undefined ? options : { ...options, timeoutMs });
  }

  /** Publishes one emitted event and resolves with the broker's acknowledgement. */
  protected async dispatchEvent<T = PublishedMessage>(packet: ReadPacket): Promise<T> {
    const { pattern, data } = packet;
    if (typeof pattern !== 'string') throw new UnsupportedPatternError(pattern);
    const { content, options } = outgoingEvent(pattern, data, this.serializer);
    return (await this.producer.produce(pattern, content, options)) as T;
  }
}

/** A handler's error as Nest's transports hand it to a client: what the replier's exception filter answered. */
function nestErrorOf(error: unknown): unknown {
  return error instanceof ReplyError && error.remoteData !== undefined ? error.remoteData : error;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSerializer(value: unknown): value is Serializer {
  return isObject(value) && typeof value.serialize === 'function';
}

import type { ConfirmChannel, Message } from 'amqplib';
import { PublishedMessage, TransportMessage, TransportPublishOptions, TransportPublisher, TransportRejectedError } from '@mmmq/core';
import { ConnectionManager } from './connection-manager';
import type { DeclaredTopology } from './declared-topology';
import { publishConfirmed } from './confirmed-publish';
import { publishOptionsOf } from './delivery-mapping';
import { PublishAbandonedError } from './errors/publish-abandoned.error';
import { PublishNotConfirmedError } from './errors/publish-not-confirmed.error';
import { RabbitMqTransportClosedError } from './errors/transport-closed.error';
import type { ResolvedRabbitMqOptions } from './rabbitmq-transport.options';
import { declareExchanges } from './topology';

/** A confirm channel with the ids RabbitMQ returned on it as unroutable; the confirm after each return settles it. */
interface PublishChannel {
  channel: ConfirmChannel;
  returned: Set<string>;
}

/**
 * Publishes to the topic exchange on a confirm channel: a publish resolves on RabbitMQ's confirm, and rejects with a
 * retryable error when RabbitMQ refuses it, the connection drops before the confirm or the confirm times out (the
 * producer then sends it again with the same id). Nothing unconfirmed is ever reported as sent, and nothing the
 * caller gave up on (its abort signal) while waiting for a connection is sent later.
 */
export class RabbitMqPublisher implements TransportPublisher {
  private readonly connections: ConnectionManager;
  private channel: Promise<PublishChannel> | undefined;
  private closing: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly options: ResolvedRabbitMqOptions,
    private readonly declared: DeclaredTopology,
  ) {
    this.connections = new ConnectionManager(options, 'publisher', async (model) => {
      const channel = await model.createChannel();
      await declareExchanges(channel, options, declared);
      await channel.close();
    });
  }

  async publish(message: TransportMessage, options?: TransportPublishOptions): Promise<PublishedMessage> {
    const [published] = await this.publishBatch([message], options);
    return published;
  }

  /** Each message is confirmed on its own: RabbitMQ cannot store several atomically, so a failed batch may be partly sent. */
  // async: a message the mapping refuses rejects the returned promise, never throws at the caller.
  async publishBatch(messages: readonly TransportMessage[], options?: TransportPublishOptions): Promise<PublishedMessage[]> {
    const now = Date.now();
    // Mapping first: a message the transport refuses fails the batch before any of it is sent.
    const prepared = messages.map((message) => ({ message, options: publishOptionsOf(message, now, this.options.rejectUnroutable) }));
    return this.track(this.send(prepared, options?.signal));
  }

  private async send(
    prepared: { message: TransportMessage; options: ReturnType<typeof publishOptionsOf> }[],
    signal: AbortSignal | undefined,
  ): Promise<PublishedMessage[]> {
    if (this.closing !== undefined) throw new RabbitMqTransportClosedError('The RabbitMQ publisher is closed');
    if (signal?.aborted) throw abandoned(prepared.length, signal);
    const deadline = Date.now() + this.options.confirmTimeoutMs;
    const { channel, returned } = await untilAborted(this.confirmChannel(this.options.confirmTimeoutMs), signal, prepared.length);
    // The caller may have given up while the channel (or a connection) was awaited: then nothing is sent.
    if (signal?.aborted) throw abandoned(prepared.length, signal);
    const confirms = prepared.map(async ({ message, options }) => {
      const content = Buffer.from(message.content, 'utf8');
      try {
        await publishConfirmed(channel, this.options.exchange, message.topic, content, options, Math.max(1, deadline - Date.now()));
      } catch (error) {
        // A return of this publish (if any) must not outlive it: a retry of the same id would read it as its own.
        returned.delete(message.id);
        throw new PublishNotConfirmedError(`RabbitMQ did not confirm ${message.id} (topic ${message.topic}): ${(error as Error).message}`, {
          cause: error,
        });
      }
      return outcome(message, returned);
    });
    return Promise.all(confirms);
  }

  private confirmChannel(timeoutMs: number): Promise<PublishChannel> {
    this.channel ??= this.openChannel(timeoutMs).catch((error: unknown) => {
      this.channel = undefined;
      throw error;
    });
    return this.channel;
  }

  private async openChannel(timeoutMs: number): Promise<PublishChannel> {
    const model = await this.connections.connection(timeoutMs);
    const channel = await model.createConfirmChannel();
    const opened = this.channel;
    // A closed channel fails its unconfirmed publishes (amqplib calls their callbacks with an error); the next
    // publish opens a new one, on a new connection if need be.
    channel.on('close', () => {
      if (this.channel === opened) this.channel = undefined;
    });
    channel.on('error', () => undefined);
    // On every channel, not only on connect: a publish to an exchange deleted meanwhile closes the channel (404), and
    // the next one, on a new channel, declares it again instead of failing until a reconnection.
    await declareExchanges(channel, this.options, this.declared);
    const returned = new Set<string>();
    channel.on('return', (message: Message) => {
      const id = message.properties.messageId as unknown;
      if (typeof id === 'string') returned.add(id);
    });
    return { channel, returned };
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => undefined);
    return work;
  }

  /** Waits for the publishes in flight to be confirmed (or fail), then closes the connection. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.inFlight]);
      await this.connections.close();
    })();
    return this.closing;
  }
}

/** Published, or refused for good when RabbitMQ returned it on that channel (`rejectUnroutable`). */
function outcome(message: TransportMessage, returned: Set<string>): PublishedMessage {
  if (returned.delete(message.id)) {
    throw new TransportRejectedError(
      `RabbitMQ returned ${message.id} of topic ${message.topic}: no queue is bound for it (rejectUnroutable)`,
    );
  }
  return message.deliveryMode === 'nonPersistent'
    ? { id: message.id, topic: message.topic, deliveryMode: 'nonPersistent' }
    : // RabbitMQ has no offsets: −1, as for deliveries.
      { id: message.id, topic: message.topic, offset: -1, deliveryMode: 'persistent' };
}

/** `work`, unless `signal` aborts first (the work itself goes on: the channel it opens serves later publishes). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined, count: number): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.reject(abandoned(count, signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abandoned(count, signal));
    signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => signal.removeEventListener('abort', onAbort);
    work.then(
      (value) => (settle(), resolve(value)),
      (error: unknown) => (settle(), reject(error)),
    );
  });
}

function abandoned(count: number, signal: AbortSignal): PublishAbandonedError {
  return new PublishAbandonedError(`The caller gave up before ${count} message(s) could be handed to RabbitMQ; nothing was sent`, {
    cause: signal.reason,
  });
}

import type { ChannelModel } from 'amqplib';
import { TransportHandler, TransportListener, TransportSubscriber } from '@mmmq/core';
import { ConnectionManager } from './connection-manager';
import type { DeclaredTopology } from './declared-topology';
import { RabbitMqTransportClosedError } from './errors/transport-closed.error';
import { ListenerConsumer } from './listener-consumer';
import type { ResolvedRabbitMqOptions } from './rabbitmq-transport.options';

/**
 * The listeners of one consumer on one AMQP connection. When the connection drops (or RabbitMQ restarts) it
 * reconnects with backoff, declares every listener's topology again and resubscribes; RabbitMQ redelivers whatever
 * was unacknowledged when the connection dropped.
 */
export class RabbitMqSubscriber implements TransportSubscriber {
  private readonly connections: ConnectionManager;
  private readonly consumers: ListenerConsumer[] = [];
  private stopped = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly options: ResolvedRabbitMqOptions,
    private readonly declared: DeclaredTopology,
  ) {
    this.connections = new ConnectionManager(options, 'subscriber', (model) => this.attachAll(model));
  }

  async subscribe(listener: TransportListener, handle: TransportHandler): Promise<void> {
    const consumer = new ListenerConsumer(this.options, listener, handle, (model) => this.dropConnection(model), this.declared);
    const deadline = Date.now() + this.options.connectTimeoutMs;
    for (;;) {
      if (this.stopped)
        throw new RabbitMqTransportClosedError(`Cannot subscribe ${listener.consumerId}: the RabbitMQ subscriber is stopping`);
      const model = await this.connections.connection(Math.max(1, deadline - Date.now()));
      try {
        await consumer.attach(model);
        // From now on every reconnection attaches it again.
        this.consumers.push(consumer);
        return;
      } catch (error) {
        // RabbitMQ refused a declaration (e.g. PRECONDITION_FAILED: the queue exists with other arguments): say so now.
        // Anything else means the connection dropped meanwhile: try again on the next one.
        if (isRefusal(error) || Date.now() >= deadline) {
          await consumer.close();
          throw error;
        }
      }
    }
  }

  async stopReceiving(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.consumers.map((consumer) => consumer.stopReceiving()));
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.stopReceiving();
      await Promise.all(this.consumers.map((consumer) => consumer.close()));
      await this.connections.close();
    })();
    return this.closing;
  }

  private async attachAll(model: ChannelModel): Promise<void> {
    for (const consumer of this.consumers) await consumer.attach(model);
  }

  /** A listener's channel failed on a live connection: reconnecting brings every listener back the same way. */
  private dropConnection(model: ChannelModel): void {
    if (!this.stopped) void model.close().catch(() => undefined);
  }
}

/** An AMQP channel error (403 access refused, 404 not found, 405 resource locked, 406 precondition failed). */
function isRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' && code >= 400 && code < 500;
}

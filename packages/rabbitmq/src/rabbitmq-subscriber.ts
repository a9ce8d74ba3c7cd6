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
      let connectionClosed = false;
      const onClose = () => (connectionClosed = true);
      model.once('close', onClose);
      try {
        await consumer.attach(model);
        if (this.stopped) {
          // stopReceiving() came while it was being set up, and could not reach it: it must not go on receiving.
          await consumer.close();
          throw new RabbitMqTransportClosedError(`Cannot subscribe ${listener.consumerId}: the RabbitMQ subscriber stopped meanwhile`);
        }
        // From now on every reconnection attaches it again.
        this.consumers.push(consumer);
        return;
      } catch (error) {
        // Only a connection that dropped meanwhile is worth another try, on the next one. Anything else (RabbitMQ
        // refused a declaration, a name it cannot take) would fail the same way again: say so now.
        if (!connectionClosed || Date.now() >= deadline) {
          await consumer.close();
          throw error;
        }
      } finally {
        model.off('close', onClose);
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

import type { ChannelModel } from 'amqplib';
import { TransportHandler, TransportListener, TransportSubscriber, TransportSubscriberState } from '@mmmq/core';
import { ConnectionManager, describeError } from './connection-manager';
import type { DeclaredTopology } from './declared-topology';
import { RabbitMqTransportClosedError } from './errors/transport-closed.error';
import { ListenerConsumer } from './listener-consumer';
import type { ResolvedRabbitMqOptions } from './rabbitmq-transport.options';

/**
 * The listeners of one consumer on one AMQP connection. When the connection drops (or RabbitMQ restarts) it
 * reconnects with backoff, declares every listener's topology again and resubscribes; RabbitMQ redelivers whatever
 * was unacknowledged when the connection dropped. {@link state} says it does not receive from the moment a listener's
 * channel or the connection is lost until every listener consumes again.
 */
export class RabbitMqSubscriber implements TransportSubscriber {
  private readonly connections: ConnectionManager;
  private readonly consumers: ListenerConsumer[] = [];
  private stopped = false;
  private closing: Promise<void> | undefined;
  private current: { receiving: boolean; since: number } = { receiving: true, since: Date.now() };

  constructor(
    private readonly options: ResolvedRabbitMqOptions,
    private readonly declared: DeclaredTopology,
  ) {
    this.connections = new ConnectionManager(options, 'subscriber', (model) => this.attachAll(model));
  }

  async subscribe(listener: TransportListener, handle: TransportHandler): Promise<void> {
    const events = { channelLost: (model: ChannelModel) => this.dropConnection(model), consumingChanged: () => this.update() };
    const consumer = new ListenerConsumer(this.options, listener, handle, events, this.declared);
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
        // Its channel may have been lost already, before it counted.
        this.update();
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
    this.update();
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

  state(): TransportSubscriberState {
    const { receiving, since } = this.current;
    return receiving ? { receiving, since } : { receiving, since, reason: this.reason() };
  }

  /** A listener started or stopped consuming, or the subscriber stopped: records when receiving changed. */
  private update(): void {
    const receiving = !this.stopped && this.consumers.every((consumer) => consumer.consuming);
    if (receiving !== this.current.receiving) this.current = { receiving, since: Date.now() };
  }

  /** Read when asked, not when it stopped: the last error of a reconnection that keeps failing. */
  private reason(): string {
    if (this.stopped) return 'stopped receiving (shutting down)';
    if (!this.connections.connected) return `disconnected, reconnecting: ${this.connections.lastErrorMessage}`;
    const lost = this.consumers.filter((consumer) => !consumer.consuming);
    const first = lost[0];
    if (first === undefined) return 'resubscribing';
    return (
      `${lost.length} listener channel(s) lost, opening new ones (${first.listener.consumerId}: ` +
      `${describeError(first.lastChannelError)})`
    );
  }

  private async attachAll(model: ChannelModel): Promise<void> {
    for (const consumer of this.consumers) await consumer.attach(model);
  }

  /** A listener's channel failed on a live connection: reconnecting brings every listener back the same way. */
  private dropConnection(model: ChannelModel): void {
    if (!this.stopped) void model.close().catch(() => undefined);
  }
}

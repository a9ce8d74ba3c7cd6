import { performance } from 'node:perf_hooks';
import { ChannelModel, connect } from 'amqplib';

/** Unacknowledged deliveries per consumer, as a listener's prefetch would be. */
export const DEFAULT_CONSUMER_PREFETCH = 100;
/** Between two connection attempts (each tries the next URL). */
const RECONNECT_PAUSE_MS = 100;

export interface RecordingConsumerOptions {
  /** Cluster nodes, tried in turn from the first. */
  urls: readonly string[];
  queue: string;
  prefetch?: number;
}

/**
 * Consumes `queue`, recording each delivery's message id and time before acknowledging it (so a message is acked
 * only once recorded: at-least-once). When its connection dies it connects to the next node and consumes again;
 * what was unacked is redelivered there, and counted as a duplicate if it had been recorded.
 */
export class RecordingConsumer {
  /** Message id → how many times it was delivered. */
  readonly seen = new Map<string, number>();
  deliveries = 0;
  /** Which connection this is (1 = the first); deliveries remember it. */
  connections = 0;
  /** When the first delivery on each connection arrived (performance.now()), by connection number. */
  readonly firstDeliveryOn = new Map<number, number>();
  lastDeliveryAt?: number;
  private connection?: ChannelModel;
  private stopped = false;
  private urlIndex = 0;
  private readonly done: Promise<void>;

  constructor(private readonly options: RecordingConsumerOptions) {
    this.done = this.run();
  }

  get duplicates(): number {
    return this.deliveries - this.seen.size;
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.connection?.close().catch(() => undefined);
    await this.done;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const url = this.options.urls[this.urlIndex % this.options.urls.length];
      try {
        await this.consumeUntilLost(url);
      } catch {
        // A node down: the next one, after a pause.
      }
      this.connection = undefined;
      if (this.stopped) return;
      this.urlIndex++;
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_PAUSE_MS));
    }
  }

  private async consumeUntilLost(url: string): Promise<void> {
    const connection = await connect(url);
    this.connection = connection;
    const lost = new Promise<void>((resolve) => {
      connection.on('error', () => resolve());
      connection.on('close', () => resolve());
    });
    if (this.stopped) return connection.close();
    const number = ++this.connections;
    const channel = await connection.createChannel();
    channel.on('error', () => connection.close().catch(() => undefined));
    channel.on('close', () => connection.close().catch(() => undefined));
    await channel.prefetch(this.options.prefetch ?? DEFAULT_CONSUMER_PREFETCH);
    await channel.consume(this.options.queue, (message) => {
      if (!message) return void connection.close().catch(() => undefined); // cancelled by the server
      const id = String(message.properties.messageId);
      const at = performance.now();
      if (!this.firstDeliveryOn.has(number)) this.firstDeliveryOn.set(number, at);
      this.lastDeliveryAt = at;
      this.deliveries++;
      this.seen.set(id, (this.seen.get(id) ?? 0) + 1);
      channel.ack(message);
    });
    await lost;
  }
}

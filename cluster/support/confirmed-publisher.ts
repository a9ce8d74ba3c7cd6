import { performance } from 'node:perf_hooks';
import { ChannelModel, ConfirmChannel, connect } from 'amqplib';

/** Publishes awaiting their confirm at once: enough to load three nodes on two cores, few enough to resend. */
export const DEFAULT_PUBLISH_WINDOW = 100;
/** Between two connection attempts (each tries the next URL). */
const RECONNECT_PAUSE_MS = 100;

export interface ConfirmedPublisherOptions {
  /** Cluster nodes, tried in turn from the first: the publisher's node first. */
  urls: readonly string[];
  exchange: string;
  routingKey: string;
  /** Message ids `m-0` … `m-<count-1>`, each published until confirmed. */
  count: number;
  window?: number;
}

/**
 * Publishes `count` persistent messages with publisher confirms, `window` unconfirmed at most. A message counts as
 * published only once confirmed (`confirmed`, with the time); one nacked, or unconfirmed when its channel or
 * connection died, is published again with the same id through the next node: at-least-once, never a silent drop.
 */
export class ConfirmedPublisher {
  /** Confirmed ids, with when the confirm arrived (performance.now()). */
  readonly confirmed = new Map<string, number>();
  /** Confirms of publishes sent after a moment: see {@link firstConfirmOfPublishAfter}. */
  private readonly confirms: Array<{ sentAt: number; at: number }> = [];
  /** Publishes sent again after a nack or a lost channel. */
  resent = 0;
  connections = 0;
  private readonly pending: string[];
  private readonly inFlight = new Set<string>();
  private connection?: ChannelModel;
  private stopped = false;
  private urlIndex = 0;
  private wake?: () => void;
  readonly done: Promise<void>;

  constructor(private readonly options: ConfirmedPublisherOptions) {
    this.pending = Array.from({ length: options.count }, (_, i) => `m-${i}`);
    this.done = this.run();
  }

  /** The first confirm received for a message sent after `moment`: when publishing resumed. */
  firstConfirmOfPublishAfter(moment: number): number | undefined {
    return this.confirms.find((confirm) => confirm.sentAt > moment)?.at;
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.connection?.close().catch(() => undefined);
    await this.done.catch(() => undefined);
  }

  private async run(): Promise<void> {
    while (!this.stopped && this.confirmed.size < this.options.count) {
      const url = this.options.urls[this.urlIndex % this.options.urls.length];
      try {
        this.connection = await connect(url);
        // Until publishUntilLost listens: a node dying in between must not be an unhandled 'error'.
        this.connection.on('error', () => undefined);
        this.connections++;
        const channel = await this.connection.createConfirmChannel();
        await this.publishUntilLost(this.connection, channel);
      } catch {
        // A node down or a channel lost: the next node, after a pause.
      }
      await this.connection?.close().catch(() => undefined);
      this.connection = undefined;
      if (this.confirmed.size < this.options.count) {
        this.urlIndex++;
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_PAUSE_MS));
      }
    }
  }

  /** Publishes on `channel` until every message is confirmed or the channel dies (then rejects). */
  private publishUntilLost(connection: ChannelModel, channel: ConfirmChannel): Promise<void> {
    const window = this.options.window ?? DEFAULT_PUBLISH_WINDOW;
    return new Promise<void>((resolve, reject) => {
      let lost = false;
      const onLost = (error?: unknown) => {
        if (lost) return;
        lost = true;
        reject(error ?? new Error('channel closed'));
      };
      connection.on('error', onLost);
      connection.on('close', () => onLost());
      channel.on('error', onLost);
      channel.on('close', () => onLost());
      const pump = () => {
        if (lost) return;
        if (this.stopped || this.confirmed.size >= this.options.count) return resolve();
        while (this.inFlight.size < window && this.pending.length > 0) {
          const id = this.pending.shift()!;
          this.inFlight.add(id);
          const sentAt = performance.now();
          const body = Buffer.from(JSON.stringify({ id, sentAt }));
          const settle = (error: unknown) => {
            this.inFlight.delete(id);
            if (error) {
              // Nacked, or the channel closed before the confirm: not published; again, same id.
              this.resent++;
              this.pending.unshift(id);
            } else if (!this.confirmed.has(id)) {
              const at = performance.now();
              this.confirmed.set(id, at);
              this.confirms.push({ sentAt, at });
            }
            pump();
          };
          try {
            channel.publish(this.options.exchange, this.options.routingKey, body, { messageId: id, persistent: true }, settle);
          } catch (error) {
            // The channel closed under us (its close event not yet seen).
            onLost(error);
            return settle(error);
          }
        }
      };
      this.wake = pump;
      pump();
    });
  }
}

import type { Channel, ConsumeMessage } from 'amqplib';
import type { PullOptions } from './system';

/**
 * The acknowledging half of RabbitMQ's batch pull: counts the messages handled since the last acknowledgement
 * and acknowledges them all with one `basic.ack` (`multiple`) once `batch` were handled, or `waitMs` after the
 * first of a batch that did not fill (the end of a run). With prefetch = batch, RabbitMQ sends the next batch
 * once the acknowledgement arrives: fetch `batch`, handle, ack the batch.
 */
export class RabbitBatchAcker {
  private pending = 0;
  private last?: ConsumeMessage;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly channel: Channel,
    private readonly options: PullOptions,
  ) {}

  handled(message: ConsumeMessage): void {
    if (this.stopped) return;
    this.last = message;
    if (++this.pending >= this.options.batch) this.ack();
    else this.timer ??= setTimeout(() => this.ack(), this.options.waitMs);
  }

  /** No more acknowledgements: the channel is closing (its unacknowledged messages go back to the queue). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private ack(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped || !this.last) return;
    this.channel.ack(this.last, true);
    this.last = undefined;
    this.pending = 0;
  }
}

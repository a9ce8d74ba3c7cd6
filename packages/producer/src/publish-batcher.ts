import type { PublishedMessage } from '@mmmq/core';
import type { OutgoingMessage } from './outgoing-message';

/** Most messages one automatic batch carries; the broker's default `http.maxBatchMessages` is 1000. */
export const DEFAULT_BATCH_MAX_MESSAGES = 500;
/** Most content bytes one automatic batch carries, well under the broker's default 1 MiB body limit. */
export const DEFAULT_BATCH_MAX_BYTES = 512 * 1024;

export interface BatchingLimits {
  maxMessages: number;
  maxBytes: number;
}

interface Waiting {
  message: OutgoingMessage;
  resolve: (published: PublishedMessage) => void;
  reject: (error: unknown) => void;
}

/**
 * Turns concurrent `produce()` calls for one topic into batch publishes, the way the broker's group commit
 * turns concurrent publishes into one fsync: calls made in the same turn of the event loop go together, and
 * while one request is in flight, later messages wait and then go together in the next. There is no linger
 * timer: a lone message leaves at the end of the current turn (`setImmediate`). With one request in flight per
 * topic, messages are stored in the order `produce()` was called.
 */
export class PublishBatcher {
  private readonly waiting = new Map<string, Waiting[]>();
  private readonly busy = new Set<string>();
  /** Topics with a send scheduled for the end of this turn. */
  private readonly scheduled = new Set<string>();

  constructor(
    private readonly limits: BatchingLimits,
    /** Sends one message or one batch with retries; resolves with one PublishedMessage per message. */
    private readonly send: (messages: OutgoingMessage[]) => Promise<PublishedMessage[]>,
  ) {}

  add(message: OutgoingMessage): Promise<PublishedMessage> {
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(message.topic) ?? [];
      queue.push({ message, resolve, reject });
      this.waiting.set(message.topic, queue);
      this.schedule(message.topic);
    });
  }

  private schedule(topic: string): void {
    if (this.busy.has(topic) || this.scheduled.has(topic)) return;
    this.scheduled.add(topic);
    setImmediate(() => {
      this.scheduled.delete(topic);
      this.pump(topic);
    });
  }

  private pump(topic: string): void {
    const queue = this.waiting.get(topic);
    if (this.busy.has(topic) || !queue || queue.length === 0) return;
    const batch = this.take(queue);
    if (queue.length === 0) this.waiting.delete(topic);
    this.busy.add(topic);
    this.send(batch.map((waiting) => waiting.message))
      .then(
        (published) => batch.forEach((waiting, i) => waiting.resolve(published[i])),
        (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
      )
      .finally(() => {
        this.busy.delete(topic);
        this.pump(topic);
      });
  }

  private take(queue: Waiting[]): Waiting[] {
    let count = 0;
    let bytes = 0;
    while (count < queue.length && count < this.limits.maxMessages) {
      const size = queue[count].message.content.length;
      if (count > 0 && bytes + size > this.limits.maxBytes) break;
      bytes += size;
      count++;
    }
    return queue.splice(0, count);
  }
}

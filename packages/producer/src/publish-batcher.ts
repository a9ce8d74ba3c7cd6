import type { PublishedMessage } from '@mmmq/core';
import type { OutgoingMessage } from './outgoing-message';

/** Most messages one automatic batch carries; the broker's default `http.maxBatchMessages` is 1000. */
export const DEFAULT_BATCH_MAX_MESSAGES = 500;
/** Most content bytes one automatic batch carries, well under the broker's default 1 MiB body limit. */
export const DEFAULT_BATCH_MAX_BYTES = 512 * 1024;
/** Batches of one topic in flight at once over the publish stream (`mmmq://`); over HTTP it is always 1. */
export const DEFAULT_STREAM_MAX_IN_FLIGHT = 4;

export interface BatchingLimits {
  maxMessages: number;
  maxBytes: number;
  /** Batches of one topic sent and not yet answered; more than 1 only where the transport keeps order. */
  maxInFlight: number;
}

/** Sends one message or one batch with retries; `beforeRetry` is awaited before every retry. */
export type SendBatch = (messages: OutgoingMessage[], beforeRetry: () => Promise<void>) => Promise<PublishedMessage[]>;

interface Waiting {
  message: OutgoingMessage;
  resolve: (published: PublishedMessage) => void;
  reject: (error: unknown) => void;
}

interface TopicLane {
  waiting: Waiting[];
  inFlight: number;
  /** Settles when the batch sent last has settled, retries included. */
  lastSettled: Promise<void>;
  /** The transport's failure count when the batches in flight were sent. */
  failuresAtSend: number;
  scheduled: boolean;
}

/**
 * Turns concurrent `produce()` calls for one topic into batch publishes, the way the broker's group commit
 * turns concurrent publishes into one fsync: calls made in the same turn of the event loop go together, and
 * while `maxInFlight` requests are in flight, later messages wait and then go together. There is no linger
 * timer: a lone message leaves at the end of the current turn (`setImmediate`).
 *
 * Messages are stored in the order `produce()` was called. With one request in flight per topic that is
 * simple; with several (over the ordered publish stream) it takes two rules: a batch is retried only after the
 * batch before it has settled, and once any request failed, no new batch of the topic is sent until every batch
 * in flight has settled — so nothing sent later can land in front of a resent batch.
 */
export class PublishBatcher {
  private readonly lanes = new Map<string, TopicLane>();

  constructor(
    private readonly limits: BatchingLimits,
    private readonly send: SendBatch,
    /** The transport's failure count (see `TransportPublisher.failures`). */
    private readonly failures: () => number = () => 0,
  ) {}

  add(message: OutgoingMessage): Promise<PublishedMessage> {
    return new Promise((resolve, reject) => {
      const lane = this.lane(message.topic);
      lane.waiting.push({ message, resolve, reject });
      if (lane.scheduled) return;
      lane.scheduled = true;
      setImmediate(() => {
        lane.scheduled = false;
        this.pump(message.topic, lane);
      });
    });
  }

  private lane(topic: string): TopicLane {
    let lane = this.lanes.get(topic);
    if (!lane) {
      lane = { waiting: [], inFlight: 0, lastSettled: Promise.resolve(), failuresAtSend: 0, scheduled: false };
      this.lanes.set(topic, lane);
    }
    return lane;
  }

  private pump(topic: string, lane: TopicLane): void {
    while (lane.waiting.length > 0 && lane.inFlight < this.limits.maxInFlight) {
      if (lane.inFlight > 0 && this.failures() !== lane.failuresAtSend) return;
      const batch = this.take(lane.waiting);
      lane.inFlight++;
      lane.failuresAtSend = this.failures();
      const previous = lane.lastSettled;
      const sending = this.send(
        batch.map((waiting) => waiting.message),
        () => previous,
      );
      lane.lastSettled = sending.then(
        (published) => batch.forEach((waiting, i) => waiting.resolve(published[i])),
        (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
      );
      void lane.lastSettled.finally(() => {
        lane.inFlight--;
        if (lane.inFlight === 0 && lane.waiting.length === 0 && !lane.scheduled) this.lanes.delete(topic);
        else this.pump(topic, lane);
      });
    }
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

import type { AcceptedMessage, DeliveryMode, PublishedMessage, StoredMessage } from '@mmmq/core';
import { Injectable, Logger } from '@nestjs/common';
import { DiskGuard, TopicQueue, TopicQueueContainer } from '../storage';
import { describeCause } from '../storage/journal/describe-cause';
import { TopicPolicies } from '../topics/topic-policies';
import { encodeEnvelope } from './message-envelope';
import { PublishableMessage } from './publish-request.parser';

/** Messages that have their place in the broker's commit order (see {@link FrontDispatcher.enqueue}). */
export interface Enqueued {
  /** `persistent` if any of the messages is (one commit cannot be half durable when acknowledged). */
  deliveryMode: DeliveryMode;
  /**
   * What to answer the publisher, once it may be answered: once durable for a persistent commit, at once for a
   * nonPersistent one (rejects only where the publisher must be told: a persistent commit that failed, or a
   * nonPersistent one made while the journal refuses writes, which waits for its outcome).
   */
  acknowledged: Promise<PublishedMessage[]>;
  /** Resolves once the messages are durable and visible; rejects when nothing of them was stored. */
  committed: Promise<void>;
}

/**
 * Appends validated messages to their topic's log and answers the publisher: once they are durable (persistent),
 * or once they have their place in the commit order (nonPersistent). Every publish, HTTP or stream, comes through
 * here, so this is where the {@link DiskGuard} refuses them.
 */
@Injectable()
export class FrontDispatcher {
  private readonly logger = new Logger(FrontDispatcher.name);

  constructor(
    private readonly queues: TopicQueueContainer,
    // Both absent only where a test builds the dispatcher by hand (every topic is then persistent).
    private readonly diskGuard?: DiskGuard,
    private readonly policies?: TopicPolicies,
  ) {}

  /** Resolves with the ACK of one message: once durable when persistent, on receipt when nonPersistent. */
  async publish(message: PublishableMessage): Promise<PublishedMessage> {
    const [published] = await this.publishBatch([message]);
    return published;
  }

  /**
   * Appends every message in one commit — one journal record, whatever topics they name: all are durable and
   * visible together (each topic's at consecutive offsets, in batch order), or none is written. Answers as
   * {@link publish}; the batch is persistent if any of its messages is.
   */
  async publishBatch(messages: readonly PublishableMessage[]): Promise<PublishedMessage[]> {
    return (await this.enqueue(messages)).acknowledged;
  }

  /**
   * Gives the messages their place in the broker's commit order and resolves as soon as they have it, before they
   * are durable: whatever is enqueued after this resolves is stored after these messages.
   */
  async enqueue(messages: readonly PublishableMessage[]): Promise<Enqueued> {
    this.diskGuard?.assertMayPublish();
    const byTopic = new Map<string, { queue: TopicQueue; payloads: Buffer[]; indices: number[] }>();
    const publishedAt = Date.now();
    for (const [index, message] of messages.entries()) {
      let part = byTopic.get(message.topic.name);
      if (!part) {
        part = { queue: await this.queues.getOrCreate(message.topic), payloads: [], indices: [] };
        byTopic.set(message.topic.name, part);
      }
      part.payloads.push(encode(message, publishedAt));
      part.indices.push(index);
    }
    const parts = [...byTopic.values()];
    for (const { queue } of parts) if (!queue.writable) await queue.assertWritable();
    const deliveryMode = this.modeOf(messages);
    // Known before committing: a nonPersistent ACK must not be sent for what the journal is already refusing.
    const refusing = this.queues.journal.refusing;
    const answeredEarly = deliveryMode === 'nonPersistent' && !refusing;
    const offered = this.queues.journal.commit(
      parts.map(({ queue, payloads }) => ({ topic: queue, payloads })),
      answeredEarly,
    );
    const committed = offered.then(() => undefined);
    // Only the callers that wait for durability look at it; a failure reaches the others through `acknowledged`.
    committed.catch(() => undefined);
    if (deliveryMode === 'persistent') {
      const acknowledged = offered.then((firstOffsets) => {
        const published = new Array<StoredMessage>(messages.length);
        parts.forEach(({ queue, indices }, i) =>
          indices.forEach((index, n) => {
            const offset = (firstOffsets[i] as number) + n;
            published[index] = { id: messages[index].id, topic: queue.topic.name, offset, deliveryMode };
          }),
        );
        return published;
      });
      return { deliveryMode, acknowledged, committed };
    }
    const accepted = messages.map((message): AcceptedMessage => ({ id: message.id, topic: message.topic.name, deliveryMode }));
    if (refusing) return { deliveryMode, acknowledged: offered.then(() => accepted), committed };
    offered.catch((error: unknown) => this.lost(messages, error));
    return { deliveryMode, acknowledged: Promise.resolve(accepted), committed };
  }

  /** A message's own mode, else its topic's; a commit is persistent if any of its messages is. */
  private modeOf(messages: readonly PublishableMessage[]): DeliveryMode {
    for (const message of messages) {
      const mode = message.deliveryMode ?? this.policies?.of(message.topic.name).deliveryMode ?? 'persistent';
      if (mode === 'persistent') return mode;
    }
    return 'nonPersistent';
  }

  /** nonPersistent messages were acknowledged, then their journal write failed: they are gone. */
  private lost(messages: readonly PublishableMessage[], error: unknown): void {
    this.queues.journal.stats.nonPersistentLost += messages.length;
    const ids = messages.map((message) => `${message.topic.name}/${message.id}`);
    this.logger.error(
      `${messages.length} nonPersistent message(s) acknowledged on receipt were lost: their journal write failed ` +
        `(${describeCause(error)}). Lost: ${ids.slice(0, 10).join(', ')}${ids.length > 10 ? `, … (${ids.length - 10} more)` : ''}`,
    );
  }
}

function encode(message: PublishableMessage, publishedAt: number): Buffer {
  return encodeEnvelope({
    id: message.id,
    topic: message.topic.name,
    publishedAt,
    headers: message.headers,
    content: message.content,
  });
}

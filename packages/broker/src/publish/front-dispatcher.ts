import type { PublishedMessage } from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import { BacklogGuard } from '../dispatch/backlog-guard';
import { DiskGuard, TopicQueue, TopicQueueContainer } from '../storage';
import { TopicPolicies } from '../topics/topic-policies';
import type { CommitPart } from '../storage/journal/journal-commit';
import { encodeEnvelope } from './message-envelope';
import { PublishableMessage } from './publish-request.parser';

/**
 * Appends validated messages to their topic's log and says where they landed, once they are durable. Every publish,
 * HTTP or stream, comes through here, so this is where the {@link DiskGuard} refuses them, and the {@link BacklogGuard}
 * refuses those to a topic whose `reject` subscription is full (a batch is refused whole).
 */
@Injectable()
export class FrontDispatcher {
  constructor(
    private readonly queues: TopicQueueContainer,
    // Absent only where a test builds the dispatcher by hand.
    private readonly diskGuard?: DiskGuard,
    // Absent only where a test builds the dispatcher by hand: then no topic has a default time to live.
    private readonly policies?: TopicPolicies,
    private readonly backlogGuard?: BacklogGuard,
  ) {}

  /** Resolves once the journal record holding the message is fsync'd. */
  async publish(message: PublishableMessage): Promise<PublishedMessage> {
    this.diskGuard?.assertMayPublish();
    this.backlogGuard?.assertMayPublish(message.topic.name);
    const queue = await this.queues.getOrCreate(message.topic);
    const offset = await queue.offer(this.encode(message, Date.now()));
    return { id: message.id, topic: message.topic.name, offset };
  }

  /**
   * Appends every message in one commit — one journal record, whatever topics they name: all are durable and
   * visible together (each topic's at consecutive offsets, in batch order), or none is written.
   */
  async publishBatch(messages: readonly PublishableMessage[]): Promise<PublishedMessage[]> {
    return (await this.enqueue(messages)).committed;
  }

  /**
   * Gives the messages their place in the broker's commit order and resolves as soon as they have it, before they
   * are durable: whatever is enqueued after this resolves is stored after these messages. `committed` resolves
   * once they are durable (or rejects, and then nothing of them was stored).
   */
  async enqueue(messages: readonly PublishableMessage[]): Promise<{ committed: Promise<PublishedMessage[]> }> {
    const { parts, published } = await this.prepare(messages);
    const offered = this.queues.journal.commit(parts);
    return { committed: offered.then(published) };
  }

  /**
   * The journal parts that store `messages` (one per topic, in batch order), checked like a publish (disk guard,
   * writable topics), and how the parts' first offsets map to each message's place. A transaction commits them with
   * its subscription state in one record.
   */
  async prepare(
    messages: readonly PublishableMessage[],
  ): Promise<{ parts: CommitPart[]; published: (firstOffsets: Array<number | undefined>) => PublishedMessage[] }> {
    this.diskGuard?.assertMayPublish();
    for (const topic of new Set(messages.map((message) => message.topic.name))) this.backlogGuard?.assertMayPublish(topic);
    const byTopic = new Map<string, { queue: TopicQueue; payloads: Buffer[]; indices: number[] }>();
    const publishedAt = Date.now();
    for (const [index, message] of messages.entries()) {
      let part = byTopic.get(message.topic.name);
      if (!part) {
        part = { queue: await this.queues.getOrCreate(message.topic), payloads: [], indices: [] };
        byTopic.set(message.topic.name, part);
      }
      part.payloads.push(this.encode(message, publishedAt));
      part.indices.push(index);
    }
    const topics = [...byTopic.values()];
    for (const { queue } of topics) if (!queue.writable) await queue.assertWritable();
    const published = (firstOffsets: Array<number | undefined>) => {
      const acks = new Array<PublishedMessage>(messages.length);
      topics.forEach(({ queue, indices }, i) =>
        indices.forEach((index, n) => {
          acks[index] = { id: messages[index].id, topic: queue.topic.name, offset: (firstOffsets[i] as number) + n };
        }),
      );
      return acks;
    };
    return { parts: topics.map(({ queue, payloads }) => ({ topic: queue, payloads })), published };
  }

  /**
   * The stored envelope. Its `expiresAt` is absolute (wall clock), fixed now: the producer's, or `publishedAt` plus
   * the message's `ttlMs`, or plus the topic's `expiry.ttlMs` when the message has neither.
   */
  private encode(message: PublishableMessage, publishedAt: number): Buffer {
    const ttlMs = message.ttlMs ?? this.policies?.of(message.topic.name).expiry.ttlMs ?? null;
    const expiresAt = message.expiresAt ?? (ttlMs === null ? undefined : publishedAt + ttlMs);
    return encodeEnvelope({
      id: message.id,
      topic: message.topic.name,
      publishedAt,
      headers: message.headers,
      ...(expiresAt === undefined ? {} : { expiresAt }),
      ...(message.priority === undefined ? {} : { priority: message.priority }),
      content: message.content,
    });
  }
}

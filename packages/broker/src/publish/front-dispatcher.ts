import type { PublishedMessage } from '@mmmq/core';
import { Injectable, Optional } from '@nestjs/common';
import { TopicLimits } from '../retention/topic-limits';
import { DiskGuard, TopicQueue, TopicQueueContainer } from '../storage';
import { encodeEnvelope } from './message-envelope';
import { PublishableMessage } from './publish-request.parser';

/**
 * Appends validated messages to their topic's log and says where they landed, once they are durable. Every publish,
 * HTTP or stream, comes through here, so this is where the {@link DiskGuard} refuses them.
 */
@Injectable()
export class FrontDispatcher {
  constructor(
    private readonly queues: TopicQueueContainer,
    // Absent only where a test builds the dispatcher by hand.
    private readonly diskGuard?: DiskGuard,
    // Absent only where a test builds the dispatcher by hand.
    @Optional() private readonly limits?: TopicLimits,
  ) {}

  /** Resolves once the journal record holding the message is fsync'd. */
  async publish(message: PublishableMessage): Promise<PublishedMessage> {
    this.diskGuard?.assertMayPublish();
    const queue = await this.queues.getOrCreate(message.topic);
    const payload = encode(message, Date.now());
    const release = await this.limits?.admit(queue, [payload]);
    try {
      const offset = await queue.offer(payload);
      return { id: message.id, topic: message.topic.name, offset };
    } finally {
      release?.();
    }
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
    const releases = await this.admitAll(parts);
    const offered = this.queues.journal.commit(parts.map(({ queue, payloads }) => ({ topic: queue, payloads })));
    const release = () => releases.forEach((done) => done());
    offered.then(release, release);
    const committed = offered.then((firstOffsets) => {
      const published = new Array<PublishedMessage>(messages.length);
      parts.forEach(({ queue, indices }, i) =>
        indices.forEach((index, n) => {
          published[index] = { id: messages[index].id, topic: queue.topic.name, offset: (firstOffsets[i] as number) + n };
        }),
      );
      return published;
    });
    return { committed };
  }

  /** Admits every part under its topic's limits, or none: a batch is refused whole. */
  private async admitAll(parts: ReadonlyArray<{ queue: TopicQueue; payloads: Buffer[] }>): Promise<Array<() => void>> {
    const releases: Array<() => void> = [];
    if (!this.limits) return releases;
    try {
      for (const { queue, payloads } of parts) releases.push(await this.limits.admit(queue, payloads));
    } catch (error) {
      for (const release of releases) release();
      throw error;
    }
    return releases;
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

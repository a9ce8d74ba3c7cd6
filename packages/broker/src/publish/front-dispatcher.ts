import type { PublishedMessage } from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import { TopicQueueContainer } from '../storage';
import { encodeEnvelope } from './message-envelope';
import { PublishableMessage } from './publish-request.parser';
import { MixedTopicBatchError } from './publish.errors';

/** Appends validated messages to their topic's log and says where they landed, once they are durable. */
@Injectable()
export class FrontDispatcher {
  constructor(private readonly queues: TopicQueueContainer) {}

  /** Resolves after the message's index entry is fsync'd. */
  async publish(message: PublishableMessage): Promise<PublishedMessage> {
    const queue = await this.queues.getOrCreate(message.topic);
    const offset = await queue.offer(encode(message, Date.now()));
    return { id: message.id, topic: message.topic.name, offset };
  }

  /**
   * Appends every message in one commit: all are durable at consecutive offsets, or none is written.
   * Each topic has its own log, so a commit cannot span topics; batches naming several are refused rather
   * than half-applied.
   *
   * @throws MixedTopicBatchError before anything is written
   */
  async publishBatch(messages: readonly PublishableMessage[]): Promise<PublishedMessage[]> {
    return (await this.enqueue(messages)).committed;
  }

  /**
   * Gives the messages their place in their topic's log and resolves as soon as they have it, before they are
   * durable: whatever is enqueued after this resolves is stored after these messages. `committed` resolves
   * once they are durable (or rejects, and then nothing of them was stored). Checks as `publishBatch` does.
   *
   * @throws MixedTopicBatchError before anything is written
   */
  async enqueue(messages: readonly PublishableMessage[]): Promise<{ committed: Promise<PublishedMessage[]> }> {
    const topic = messages[0].topic;
    const stranger = messages.findIndex((message) => !message.topic.equals(topic));
    if (stranger >= 0) {
      throw new MixedTopicBatchError(
        `All messages of a batch must share one topic: messages[0] is for ${topic.name}, ` +
          `messages[${stranger}] for ${messages[stranger].topic.name}`,
      );
    }
    const queue = await this.queues.getOrCreate(topic);
    const publishedAt = Date.now();
    const offered = queue.offerAll(messages.map((message) => encode(message, publishedAt)));
    const committed = offered.then((first) =>
      messages.map((message, index) => ({ id: message.id, topic: topic.name, offset: first + index })),
    );
    return { committed };
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

import { Topic } from '@mmmq/core';
import {
  DEFAULT_FLUSH_BYTES,
  DEFAULT_FLUSH_INTERVAL_MS,
  DEFAULT_SEGMENT_MAX_BYTES,
  ResolvedPersistenceOptions,
} from '../../src/config/broker-options';
import { encodeEnvelope } from '../../src/format/message-envelope';
import { RecordsCommittedEvent } from '../../src/storage/journal/records-committed.event';
import { TopicQueue } from '../../src/storage/topic-queue';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';

/** Persistence options with the defaults, for tests that build the storage by hand. */
export function persistenceOptions(rootDir: string, overrides: Partial<ResolvedPersistenceOptions> = {}): ResolvedPersistenceOptions {
  return {
    rootDir,
    segmentMaxBytes: DEFAULT_SEGMENT_MAX_BYTES,
    flushIntervalMs: DEFAULT_FLUSH_INTERVAL_MS,
    flushBytes: DEFAULT_FLUSH_BYTES,
    ...overrides,
  };
}

/** A real TopicQueueContainer over `rootDir`. */
export function openContainer(rootDir: string): TopicQueueContainer {
  return TopicQueueContainer.standalone(persistenceOptions(rootDir));
}

/** Calls `listener` after every journal record that appended to `queue`, as the subscription container does. */
export function onCommitted(container: TopicQueueContainer, queue: TopicQueue, listener: () => void): () => void {
  return container.bus.on<RecordsCommittedEvent>(RecordsCommittedEvent.NAME, ({ topics }) => {
    if (topics.includes(queue)) listener();
  });
}

/** Publishes JSON contents the way the HTTP endpoint stores them; resolves with their offsets. */
export async function publish(queue: TopicQueue, ...contents: unknown[]): Promise<number[]> {
  const offsets: number[] = [];
  for (const content of contents) {
    offsets.push(
      await queue.offer(
        encodeEnvelope({
          id: `${queue.topic.name}-${queue.tailOffset}`,
          topic: queue.topic.name,
          publishedAt: Date.now(),
          headers: { source: 'test' },
          content: Buffer.from(JSON.stringify(content)),
        }),
      ),
    );
  }
  return offsets;
}

export async function topicQueue(container: TopicQueueContainer, name: string): Promise<TopicQueue> {
  return container.getOrCreate(Topic.of(name));
}

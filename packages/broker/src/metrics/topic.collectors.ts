import type { Deduplicator } from '../deduplication/deduplicator';
import type { TopicQueue } from '../storage/topic-queue';
import type { CappedFamily } from './capped-series';
import { OTHER_SERIES } from './series-selection';

/** The label of the topics beyond `metrics.maxTopicSeries`. */
export const OTHER_TOPIC_LABELS = { topic: OTHER_SERIES };

/**
 * The per-topic series (label `topic`), read from each open topic when scraped: its queue's offsets and files, and its
 * de-duplication window. Read from the queue itself, not `GET /mmmq/topics`'s view, which also lists each topic's
 * subscriptions (a walk over all of them per topic). Topics beyond the cap are summed; offsets do not add up, so they
 * have no `__other` series, and `writable` shows the least writable (0 when any of them refuses writes).
 */
export function topicFamily(deduplicator?: Deduplicator): CappedFamily<TopicQueue> {
  return {
    key: (queue) => queue.name,
    labels: (queue) => ({ topic: queue.name }),
    // The topics keeping the most messages get a free slot first.
    weight: (queue) => queue.tailOffset - queue.startOffset,
    gauges: [
      {
        name: 'mmmq_topic_log_end_offset',
        help: 'Offset the next message of the topic gets',
        aggregate: 'none',
        value: (q) => q.tailOffset,
      },
      {
        name: 'mmmq_topic_log_start_offset',
        help: 'Offset of the oldest message the topic keeps',
        aggregate: 'none',
        value: (q) => q.startOffset,
      },
      {
        name: 'mmmq_topic_messages',
        help: 'Messages the topic keeps on disk',
        aggregate: 'sum',
        value: (q) => q.tailOffset - q.startOffset,
      },
      { name: 'mmmq_topic_segments', help: 'Segment files of the topic', aggregate: 'sum', value: (q) => q.chain.segmentCount },
      { name: 'mmmq_topic_size_bytes', help: 'Bytes of the topic segment files on disk', aggregate: 'sum', value: (q) => q.byteSize },
      {
        name: 'mmmq_topic_writable',
        help: '1 while the topic accepts writes, 0 after a failed file write',
        aggregate: 'min',
        value: (q) => Number(q.writable),
      },
    ],
    counters: [
      // Counted by the topic's de-duplication window (docs/destinations.md#de-duplication).
      {
        name: 'mmmq_topic_messages_deduplicated_total',
        help: 'Re-publishes of a known producer-given id answered with the original ACK, nothing stored',
        value: (q) => deduplicator?.stats(q.name)?.deduplicated ?? 0,
      },
    ],
  };
}

import { Counter, Gauge, Registry } from 'prom-client';
import { TopicInfo, TopicRegistry } from '../topics/topic-registry';

/** One gauge per topic fact, read from `GET /mmmq/topics`'s view when scraped. */
const TOPIC_GAUGES: ReadonlyArray<{ name: string; help: string; value: (topic: TopicInfo) => number }> = [
  { name: 'mmmq_topic_log_end_offset', help: 'Offset the next message of the topic gets', value: (t) => t.tailOffset },
  { name: 'mmmq_topic_log_start_offset', help: 'Offset of the oldest message the topic keeps', value: (t) => t.startOffset },
  { name: 'mmmq_topic_messages', help: 'Messages the topic keeps on disk', value: (t) => t.messages },
  { name: 'mmmq_topic_segments', help: 'Segment files of the topic', value: (t) => t.segments },
  { name: 'mmmq_topic_size_bytes', help: 'Bytes of the topic segment files on disk', value: (t) => t.bytes },
  { name: 'mmmq_topic_writable', help: '1 while the topic accepts writes, 0 after a failed file write', value: (t) => Number(t.writable) },
];

/** The per-topic gauges (label `topic`), computed from the broker's topics at every scrape. */
export function registerTopicCollectors(registry: Registry, topics: TopicRegistry): void {
  for (const { name, help, value } of TOPIC_GAUGES) {
    new Gauge({
      name,
      help,
      labelNames: ['topic'],
      registers: [registry],
      collect() {
        this.reset();
        for (const topic of topics.list()) this.set({ topic: topic.name }, value(topic));
      },
    });
  }
  // Counted by the topic's de-duplication window (docs/destinations.md#de-duplication), read at every scrape.
  new Counter({
    name: 'mmmq_topic_messages_deduplicated_total',
    help: 'Re-publishes of a known producer-given id answered with the original ACK, nothing stored',
    labelNames: ['topic'],
    registers: [registry],
    collect() {
      this.reset();
      for (const topic of topics.list()) if (topic.messagesDeduplicated > 0) this.inc({ topic: topic.name }, topic.messagesDeduplicated);
    },
  });
}

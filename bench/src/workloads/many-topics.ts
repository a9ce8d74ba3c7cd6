import { endToEnd } from './end-to-end';
import { P50, P99, RATE, type Workload } from './workload';

export const manyTopics: Workload = {
  id: 'topics-100',
  title: (c) => `${c.topicCount} topics × 1 consumer each`,
  describe: (c) =>
    `${c.topicsMessages.toLocaleString('en')} messages of ${c.size / 1024} KiB spread round-robin over ${c.topicCount} topics, each with its own consumer (RabbitMQ: 100 queues, consumed on one channel; Redis: 100 streams with a group each, one XREADGROUP over all; JetStream: one stream, 100 durable consumers filtered by subject; MMMQ: one listener whose pattern matches the 100 topics, so 100 subscriptions), window ${c.window.toLocaleString('en')}.`,
  metrics: [RATE(), P50, P99],
  headline: 'rate',
  applies: () => true,
  run: (system, ctx) => endToEnd(system, ctx, { messages: ctx.config.topicsMessages, size: ctx.config.size, topics: ctx.config.topicCount, groups: 1 }),
};

import { endToEnd } from './end-to-end';
import { FSYNCS, P50, P99, RATE, type Workload } from './workload';

/** `topics` topics with one consumer each, end to end at saturation; the broker's fsyncs/s are counted. */
export function manyTopics(topics: number): Workload {
  const n = topics.toLocaleString('en');
  return {
    id: `topics-${topics}`,
    title: () => `${n} topics × 1 consumer each`,
    describe: (c) =>
      `${c.topicsMessages.toLocaleString('en')} messages of ${c.size / 1024} KiB spread round-robin over ${n} topics, each with its own consumer (RabbitMQ: ${n} queues, consumed on one channel; Redis: ${n} streams with a group each, one XREADGROUP over all; JetStream: one stream, ${n} durable consumers filtered by subject; MMMQ: one listener whose pattern matches the ${n} topics, so ${n} subscriptions), window ${c.window.toLocaleString('en')}. *broker fsyncs/s*: MMMQ's own count (\`GET /mmmq/storage\`, \`fsyncs.total\`) read before and after the measured phase; not counted for the peers.`,
    metrics: [RATE(), P50, P99, FSYNCS],
    headline: 'rate',
    countsFsyncs: true,
    applies: () => true,
    run: (system, ctx) => endToEnd(system, ctx, { messages: ctx.config.topicsMessages, size: ctx.config.size, topics, groups: 1 }),
  };
}

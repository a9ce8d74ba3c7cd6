import { endToEnd } from './end-to-end';
import { DUPLICATES, P50, P99, RATE, type Workload } from './workload';

/** Messages asked for per fetch in the pull workload. */
export const PULL_BATCH = 100;
/**
 * Longest a fetch waits for messages (MMMQ `waitMs`, Redis `BLOCK`, JetStream `expires`, RabbitMQ: when a
 * batch that did not fill is acknowledged). JetStream's client allows no less than 1,000 ms.
 */
export const PULL_WAIT_MS = 1000;

/** One pull consumer: fetch up to 100, handle them, acknowledge the batch, fetch again. */
export const pull: Workload = {
  id: 'pull-100',
  title: () => `Pull: fetch ${PULL_BATCH}, acknowledge the batch`,
  describe: (c) =>
    `${c.pull.toLocaleString('en')} messages of ${c.size / 1024} KiB to one topic, published with window ${c.window.toLocaleString('en')} while one pull consumer fetches up to ${PULL_BATCH} at a time (waiting at most ${PULL_WAIT_MS.toLocaleString('en')} ms for messages), handles them, sends one acknowledgement for the batch and fetches again (not waiting for the acknowledgement's answer, where there is one). **MMMQ**: a consumerId without host (pull only), \`POST /mmmq/consumers/{id}/fetch\` \`{"max":${PULL_BATCH},"waitMs":${PULL_WAIT_MS}}\` (long poll: it answers as soon as there are messages), then one \`POST …/ack\` with the batch's leases, plain HTTP on keep-alive connections; the next fetch goes out at once, with at most one ack awaiting its (durable) answer. **Redis**: XREADGROUP COUNT ${PULL_BATCH} BLOCK ${PULL_WAIT_MS}, then one XACK for the batch. **JetStream**: \`fetch({ max_messages: ${PULL_BATCH}, expires: ${PULL_WAIT_MS} })\` in a loop, each message acknowledged with \`ack()\` as it is handled (explicit acks have no batch form). **RabbitMQ** has no batch get (\`basic.get\` is one message per round trip, which its documentation advises against), so the batch pull is what its users do instead: a consumer with prefetch ${PULL_BATCH} that acknowledges each ${PULL_BATCH} messages with one \`basic.ack\` *multiple* (or a batch that did not fill after ${PULL_WAIT_MS.toLocaleString('en')} ms); RabbitMQ sends the next ${PULL_BATCH} once the ack arrives. msgs/s = messages / (last delivery − first publish).`,
  metrics: [RATE(), P50, P99, DUPLICATES],
  headline: 'rate',
  applies: (system) => (system.pull ? true : 'no pull API'),
  async run(system, ctx) {
    const outcome = await endToEnd(system, ctx, {
      messages: ctx.config.pull,
      size: ctx.config.size,
      topics: 1,
      groups: 1,
      consume: (plan, onMessage) => system.pull!(plan, { batch: PULL_BATCH, waitMs: PULL_WAIT_MS }, onMessage),
    });
    const { p50, p99, rate } = outcome.metrics;
    return { metrics: { rate, p50, p99, duplicates: outcome.duplicates }, messages: outcome.messages, note: outcome.note };
  },
};

import { DEFAULT_DELIVERY_BATCH_SIZE, DEFAULT_DELIVERY_MAX_IN_FLIGHT } from '@mmmq/consumer';
import { endToEnd } from './end-to-end';
import { BUSIEST, busiestShare, DUPLICATES, P50, P99, RATE, type Workload } from './workload';

/** Consumers sharing one queue in the competing-consumers workload. */
export const COMPETING_MEMBERS = 3;

/** Queue semantics: one queue, 3 consumers sharing its messages, each message handled once (at least once). */
export const competing: Workload = {
  id: 'competing-3',
  title: () => `Competing consumers: one queue, ${COMPETING_MEMBERS} consumers sharing it`,
  describe: (c) =>
    `${c.competing.toLocaleString('en')} messages of ${c.size / 1024} KiB to one topic whose messages ${COMPETING_MEMBERS} consumers share, each message going to one of them (queue semantics), window ${c.window.toLocaleString('en')}. **RabbitMQ**: one queue, ${COMPETING_MEMBERS} consumers on it, each on its own channel (prefetch 1,000, one ack per message); **Redis**: one consumer group, ${COMPETING_MEMBERS} consumers in it, each with XREADGROUP COUNT 1000 BLOCK 200 and one XACK per batch on its own connection; **JetStream**: one durable pull consumer, ${COMPETING_MEMBERS} subscribers each running \`consume({ max_messages: 1000 })\` on it; **MMMQ**: one consumerId with ${COMPETING_MEMBERS} member hosts — ${COMPETING_MEMBERS} consumer apps (\`MmmqConsumerModule\`, default options), which the bench registers itself, one \`POST /mmmq/dispatchers\` each with the same consumerId and the library's default settings (\`batchSize\` ${DEFAULT_DELIVERY_BATCH_SIZE}, \`maxInFlight\` ${DEFAULT_DELIVERY_MAX_IN_FLIGHT}): the first creates the consumerId, each further one adds its host to the group. msgs/s = messages / (last delivery − first publish); every message must arrive at least once; *duplicates* counts deliveries beyond the first; *busiest member* is the share of the messages the busiest consumer handled (${Math.round(100 / COMPETING_MEMBERS)} % = even).`,
  metrics: [RATE(), P50, P99, BUSIEST, DUPLICATES],
  headline: 'rate',
  applies: () => true,
  async run(system, ctx) {
    const perMember = new Array<number>(COMPETING_MEMBERS).fill(0);
    const outcome = await endToEnd(system, ctx, {
      messages: ctx.config.competing,
      size: ctx.config.size,
      topics: 1,
      groups: 1,
      consume: (plan, onMessage) =>
        system.consumeCompeting(plan, COMPETING_MEMBERS, (member, content) => {
          perMember[member]++;
          onMessage(0, content);
        }),
    });
    const { p50, p99, rate } = outcome.metrics;
    return {
      metrics: { rate, p50, p99, busiest: busiestShare(perMember), duplicates: outcome.duplicates },
      messages: outcome.messages,
      note: outcome.note,
    };
  },
};

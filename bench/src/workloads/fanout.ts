import { endToEnd } from './end-to-end';
import { P50, P99, RATE, type Workload } from './workload';

const CONSUMERS = 3;

export const fanout: Workload = {
  id: 'fanout-3',
  title: () => `Fan-out: one topic, ${CONSUMERS} consumers`,
  describe: (c) =>
    `${c.fanout.toLocaleString('en')} messages of ${c.size / 1024} KiB to one topic read by ${CONSUMERS} independent consumers (RabbitMQ: 3 queues bound to the routing key; Redis: 3 consumer groups; JetStream: 3 durable consumers; MMMQ: 3 listeners, so 3 dispatchers), window ${c.window.toLocaleString('en')}. deliveries/s = ${CONSUMERS} × messages / (last delivery − first publish).`,
  metrics: [RATE('deliveries/s'), P50, P99],
  headline: 'rate',
  applies: () => true,
  run: (system, ctx) => endToEnd(system, ctx, { messages: ctx.config.fanout, size: ctx.config.size, topics: 1, groups: CONSUMERS }),
};

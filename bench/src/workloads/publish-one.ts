import { publishOneAtATime } from './one-at-a-time';
import { P50, P99, RATE, type Workload } from './workload';

/** One publish at a time: the next is sent once the previous one was acknowledged as stored. */
export const publishOne: Workload = {
  id: 'publish-one',
  title: () => 'Confirmed publish, one at a time',
  describe: (c) =>
    `${c.publishOne.toLocaleString('en')} messages of ${c.size / 1024} KiB, each sent only after the previous one was acknowledged (publisher confirm, XADD reply, PubAck, MMMQ ACK). Latency is publish call → acknowledgement. No consumer runs (one queue/group exists so RabbitMQ routes and stores the messages).`,
  metrics: [RATE(), P50, P99],
  headline: 'rate',
  applies: () => true,
  measuresPublishing: true,
  run: (system, ctx) => publishOneAtATime(system, ctx, ctx.config.publishOne),
};

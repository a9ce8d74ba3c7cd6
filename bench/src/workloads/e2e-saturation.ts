import { endToEnd } from './end-to-end';
import { FSYNCS, MAX, P50, P99, RATE, type Workload } from './workload';

export const e2eSaturation: Workload = {
  id: 'e2e-saturation',
  title: () => 'End to end at saturation (1 consumer)',
  describe: (c) =>
    `${c.e2e.toLocaleString('en')} messages of ${c.size / 1024} KiB published as fast as a window of ${c.window.toLocaleString('en')} unacknowledged publishes allows, to one topic with one consumer already subscribed; each is delivered, handled and acknowledged. msgs/s = messages / (last delivery − first publish); latency is publish call → delivery to the handler. *broker fsyncs/s*: MMMQ's own count (\`GET /mmmq/storage\`, \`fsyncs.total\`) read before and after the measured phase, the 1-topic reference for the many-topics workloads.`,
  metrics: [RATE(), P50, P99, MAX, FSYNCS],
  headline: 'rate',
  countsFsyncs: true,
  applies: () => true,
  run: (system, ctx) => endToEnd(system, ctx, { messages: ctx.config.e2e, size: ctx.config.size, topics: 1, groups: 1 }),
};

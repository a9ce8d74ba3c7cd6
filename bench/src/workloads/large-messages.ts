import { endToEnd } from './end-to-end';
import { P50, P99, RATE, type Workload } from './workload';

export const largeMessages: Workload = {
  id: 'large-64k',
  title: (c) => `${c.largeSize / 1024} KiB messages, end to end`,
  describe: (c) =>
    `${c.large.toLocaleString('en')} messages of ${c.largeSize / 1024} KiB, end to end at saturation like the 1 KiB case (one topic, one consumer, window ${c.window.toLocaleString('en')}).`,
  metrics: [RATE(), { key: 'mibps', label: 'MiB/s', unit: 'MiB/s', better: 'higher' }, P50, P99],
  headline: 'rate',
  applies: () => true,
  async run(system, ctx) {
    const outcome = await endToEnd(system, ctx, { messages: ctx.config.large, size: ctx.config.largeSize, topics: 1, groups: 1 });
    return { ...outcome, metrics: { ...outcome.metrics, mibps: (outcome.metrics.rate * ctx.config.largeSize) / (1024 * 1024) } };
  },
};

import { content } from '../payload';
import { pump } from '../pump';
import { RATE, type Workload } from './workload';

/** Pipelined publishing: up to `window` messages unacknowledged at once, each acknowledged on its own. */
export const publishWindow: Workload = {
  id: 'publish-window',
  title: (c) => `Pipelined publish (window ${c.window.toLocaleString('en')})`,
  describe: (c) =>
    `${c.publishWindow.toLocaleString('en')} messages of ${c.size / 1024} KiB with at most ${c.window.toLocaleString('en')} unacknowledged at any time; each message is acknowledged individually. msgs/s = messages / time until the last acknowledgement. No consumer runs.`,
  metrics: [RATE()],
  headline: 'rate',
  applies: () => true,
  measuresPublishing: true,
  async run(system, ctx) {
    const plan = ctx.plan(1, 1);
    await system.declare(plan);
    const n = ctx.config.publishWindow;
    try {
      await ctx.startSampling();
      const start = performance.now();
      await pump(n, ctx.config.window, (i) => system.publish(plan.topics[0], content(i, performance.now(), ctx.config.size)));
      const seconds = (performance.now() - start) / 1000;
      await ctx.stopSampling();
      return { metrics: { rate: n / seconds }, messages: n };
    } finally {
      await system.drop(plan);
    }
  },
};

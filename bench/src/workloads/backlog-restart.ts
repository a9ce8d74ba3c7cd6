import { content, type BenchContent } from '../payload';
import { pump } from '../pump';
import { log } from '../services';
import type { RestartSupport } from '../systems/system';
import { DeliveryTracker } from './end-to-end';
import type { Workload } from './workload';

const FILL_BATCH = 500;

/**
 * A backlog published with no consumer running, then a clean broker restart, then one consumer drains it.
 * Broker CPU is sampled from the restart to the end of the drain, RSS of the restarted broker only.
 */
export const backlogRestart: Workload = {
  id: 'backlog-restart',
  title: (c) => `Backlog of ${c.backlog.toLocaleString('en')} drained after a broker restart`,
  describe: (c) =>
    `${c.backlog.toLocaleString('en')} messages of ${c.size / 1024} KiB are published to one topic while its consumer is away, the broker is stopped cleanly and started again, and one consumer drains the backlog (followed for at most ${c.drainCapSeconds} s; the drain rate is over what arrived). *first delivery* is from the restart command to the first message handled; *ready* is from the restart command to the broker accepting clients again; broker RSS is the restarted broker's peak, to the end of the drain. Each round starts from an empty broker where the bench owns it.`,
  metrics: [
    { key: 'ttfd', label: 'first delivery', unit: 'ms', better: 'lower' },
    { key: 'ready', label: 'ready', unit: 'ms', better: 'lower' },
    { key: 'rate', label: 'drain msgs/s', unit: '/s', better: 'higher' },
    { key: 'drained', label: 'drained', unit: '', better: 'higher', ratio: false },
  ],
  headline: 'ttfd',
  // Loading the backlog is not bounded by the round timeout: allow it 1 ms a message on top.
  hardLimitSeconds: (c) => c.roundTimeoutSeconds * 3 + c.drainCapSeconds + c.backlog / 1000,
  applies: (system) => (typeof system.restart === 'string' ? system.restart : true),
  async run(system, ctx) {
    const restart = system.restart as RestartSupport;
    const c = ctx.config;
    await restart.fresh();
    const plan = ctx.plan(1, 1);
    const topic = plan.topics[0];
    await system.declare(plan);
    await restart.beforeFill?.(plan);

    const fillStart = performance.now();
    if (system.publishBatch) {
      const batches = Math.ceil(c.backlog / FILL_BATCH);
      await pump(batches, 8, (b) => {
        const contents: BenchContent[] = [];
        for (let i = b * FILL_BATCH; i < Math.min(c.backlog, (b + 1) * FILL_BATCH); i++) contents.push(content(i, 0, c.size));
        return system.publishBatch!(topic, contents);
      });
    } else {
      await pump(c.backlog, c.window, (i) => system.publish(topic, content(i, 0, c.size)));
    }
    log(`  ${system.label}: backlog of ${c.backlog} published in ${((performance.now() - fillStart) / 1000).toFixed(1)} s`);

    const tracker = new DeliveryTracker(c.backlog, 1, false);
    await ctx.startSampling();
    const { restartAt, readyAt, handle, note: restartNote } = await restart.restartAndConsume(plan, tracker.onMessage);
    try {
      const note = await tracker.wait(c.drainCapSeconds * 1000);
      await ctx.stopSampling();
      const complete = tracker.delivered === tracker.expected;
      const drainSeconds = ((complete ? tracker.lastAt : performance.now()) - tracker.firstAt) / 1000;
      return {
        metrics: {
          ttfd: tracker.delivered ? tracker.firstAt - restartAt : NaN,
          ready: readyAt - restartAt,
          rate: tracker.delivered > 1 ? tracker.delivered / drainSeconds : NaN,
          drained: tracker.delivered,
        },
        messages: tracker.delivered,
        note:
          [
            complete
              ? note
              : `drain followed for ${c.drainCapSeconds} s: ${tracker.delivered.toLocaleString('en')} of ${c.backlog.toLocaleString('en')} delivered`,
            restartNote,
          ]
            .filter(Boolean)
            .join('; ') || undefined,
      };
    } finally {
      await handle.close();
      await system.drop(plan);
    }
  },
};

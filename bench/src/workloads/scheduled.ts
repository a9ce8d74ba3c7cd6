import { content, type BenchContent } from '../payload';
import { pump } from '../pump';
import { DeliveryTracker } from './end-to-end';
import { DUPLICATES, type MetricDef, type Workload } from './workload';

/** How far ahead each batch is scheduled when it is sent. */
const DELAY_MS = 1000;
const BATCH = 500;
/** Batches on their way at once. */
const BATCHES_IN_FLIGHT = 8;
/**
 * A delivery counts as early only this far before its due time: the bench turns the wall-clock due time into its
 * `performance.now()` clock once per round, which is exact to well under a millisecond.
 */
const EARLY_TOLERANCE_MS = 1;

const lateness = (key: string, label: string): MetricDef => ({ key, label: `lateness ${label}`, unit: 'ms', better: 'lower' });

/**
 * Messages published in batches, each scheduled (`deliverAt`) 1 s after it is sent, to a consumer that is already
 * listening: how late after its due time each is delivered.
 */
export const scheduled: Workload = {
  id: 'scheduled',
  title: (c) => `${c.scheduled.toLocaleString('en')} messages scheduled 1 s ahead`,
  describe: (c) =>
    `${c.scheduled.toLocaleString('en')} messages of ${c.size / 1024} KiB published to one topic in batches of ${BATCH} (${BATCHES_IN_FLIGHT} batches on their way at once), each batch scheduled with \`deliverAt\` ${DELAY_MS} ms after it is sent, to one consumer listening from the start. *lateness* is the delivery time minus the message's due time; *early* counts deliveries more than ${EARLY_TOLERANCE_MS} ms before it (must be 0); *acknowledged after due* counts messages whose publish was acknowledged (stored) only after their due time, late before the schedule had them.`,
  metrics: [
    lateness('p50', 'p50'),
    lateness('p99', 'p99'),
    lateness('max', 'max'),
    { key: 'early', label: 'early', unit: '', better: 'lower', ratio: false },
    { key: 'ackedLate', label: 'acknowledged after due', unit: '', better: 'lower', ratio: false },
    DUPLICATES,
  ],
  headline: 'p99',
  applies: (system) =>
    system.publishScheduled
      ? true
      : 'no scheduled publish in this driver (RabbitMQ needs the delayed-message plugin; Redis Streams and JetStream have none)',
  async run(system, ctx) {
    const c = ctx.config;
    const plan = ctx.plan(1, 1);
    const topic = plan.topics[0];
    await system.declare(plan);
    const tracker = new DeliveryTracker(c.scheduled, 1);
    let early = 0;
    // Stored (acknowledged) only after their due time: the publishing, not the schedule, made these late.
    let ackedLate = 0;
    const handle = await system.consume(plan, (group, message) => {
      if (performance.now() < message.t - EARLY_TOLERANCE_MS) early++;
      tracker.onMessage(group, message);
    });
    // Wall clock → this process's performance clock, once: `t` of each message is its due time on the latter.
    const wallToPerformance = performance.now() - Date.now();
    try {
      await ctx.startSampling();
      await pump(Math.ceil(c.scheduled / BATCH), BATCHES_IN_FLIGHT, (b) => {
        const dueAt = Date.now() + DELAY_MS;
        const contents: BenchContent[] = [];
        for (let i = b * BATCH; i < Math.min(c.scheduled, (b + 1) * BATCH); i++)
          contents.push(content(i, dueAt + wallToPerformance, c.size));
        return system.publishScheduled!(topic, contents, dueAt).then(() => {
          if (Date.now() > dueAt) ackedLate += contents.length;
        });
      });
      const note = await tracker.wait(c.roundTimeoutSeconds * 1000 + DELAY_MS);
      await ctx.stopSampling();
      const { p50, p99, max } = tracker.latencies.summary();
      return {
        metrics: { p50, p99, max, early, ackedLate, duplicates: tracker.duplicates },
        messages: c.scheduled,
        note: [note, handle.note?.()].filter(Boolean).join('; ') || undefined,
      };
    } finally {
      await handle.close();
      await system.drop(plan);
    }
  },
};

import { ScenarioRun } from '../src/harness/scenario-run';
import { runKillCycles } from '../src/scenarios/kill-cycles';

/** The crash loop's topics; one of them never fsyncs on its own, the others within the interval. */
const TOPICS = ['fault.solo', 'fault.multi-0', 'fault.multi-1', 'Fault.Mixed-Case'];

/**
 * `fsync: interval` (and `never` on one topic) answer publishes before their fsync. A SIGKILL leaves the page cache
 * in place, so it must lose nothing acknowledged, exactly as under `always`; only a power loss may lose what was
 * acknowledged within the interval (docs/storage.md#flush-policy-fsync), which the power-loss scenario does not cover.
 */
describe('crash loop under the interval and never flush policies: SIGKILL at random moments under mixed load', () => {
  const run = new ScenarioRun('crash-loop-fsync-interval', 13, 'Crash loop under fsync interval / never (SIGKILL)');

  it(`loses, duplicates, reorders and garbles nothing acknowledged across ${run.sizes.crashIntervalCycles} cycles`, async () => {
    let failure: unknown;
    try {
      await runKillCycles(run, {
        cycles: run.sizes.crashIntervalCycles,
        powerLoss: false,
        topics: () => TOPICS,
        multiTopicShare: 0.3,
        segmentMaxBytes: 256 * 1024,
        flushCycles: 0,
        env: {
          MMMQ_FSYNC: 'interval',
          MMMQ_FSYNC_INTERVAL_MS: '200',
          MMMQ_TOPICS: JSON.stringify({ overrides: [{ pattern: 'fault.multi-0', fsync: 'never' }] }),
        },
      });
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      run.finish(failure);
    }
  });
});

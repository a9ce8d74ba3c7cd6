import { ScenarioRun } from '../src/harness/scenario-run';
import { runKillCycles } from '../src/scenarios/kill-cycles';

/**
 * Many topics, odd names among them, and one more new in each cycle; segments of 64 KiB so that cuts land around
 * rotations on every topic.
 */
const TOPIC_COUNT = 32;
const TOPICS = [
  ...Array.from({ length: TOPIC_COUNT - 2 }, (_, i) => `fault.power-${String(i).padStart(2, '0')}`),
  'fault.power.nested_a-b',
  'Fault.Power-Mixed-Case',
];

describe('power loss: after each SIGKILL, everything past what the journal proves durable is cut and zero- or garbage-filled', () => {
  const run = new ScenarioRun('power-loss', 2, 'Power loss (SIGKILL, then everything past the durable floors cut)');

  it(`keeps every acknowledged message, and every batch whole or absent, across ${run.sizes.powerLossCycles} power cuts`, async () => {
    let failure: unknown;
    try {
      await runKillCycles(run, {
        cycles: run.sizes.powerLossCycles,
        powerLoss: true,
        // A topic new in every cycle: created, subscribed and published to under load, then cut before any flush.
        topics: (cycle) => [...TOPICS, `fault.power-new-${cycle}`],
        multiTopicShare: 0.6,
        segmentMaxBytes: 64 * 1024,
        flushCycles: run.sizes.powerLossFlushCycles,
      });
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      run.finish(failure);
    }
  });
});

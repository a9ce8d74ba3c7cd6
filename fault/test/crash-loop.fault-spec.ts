import { ScenarioRun } from '../src/harness/scenario-run';
import { runKillCycles } from '../src/scenarios/kill-cycles';

/** Two more consumer ids on the checker's host: shared pushes, some parts settled only in part. */
const SHARED_LISTENERS = ['fault-shared-a', 'fault-shared-b'];

/** Even cycles publish to one topic, odd ones to five (odd names among them), a third of their batches spanning several. */
const SINGLE_TOPIC = ['fault.solo'];
const MULTI_TOPICS = ['fault.multi-0', 'fault.multi-1', 'fault.multi-2', 'fault.multi.nested_a-b', 'Fault.Mixed-Case'];

describe('crash loop: the standalone broker SIGKILLed at random moments under mixed HTTP, batch and stream load', () => {
  const run = new ScenarioRun('crash-loop', 1, 'Crash loop (SIGKILL)');

  it(`loses, duplicates, reorders and garbles nothing acknowledged across ${run.sizes.crashCycles} cycles`, async () => {
    let failure: unknown;
    try {
      await runKillCycles(run, {
        cycles: run.sizes.crashCycles,
        powerLoss: false,
        topics: (cycle) => (cycle % 2 === 0 ? SINGLE_TOPIC : MULTI_TOPICS),
        multiTopicShare: 0.3,
        segmentMaxBytes: 256 * 1024,
        flushCycles: 0,
        sharedListeners: SHARED_LISTENERS,
      });
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      run.finish(failure);
    }
  });
});

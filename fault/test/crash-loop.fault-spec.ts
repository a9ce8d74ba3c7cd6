import { ScenarioRun } from '../src/harness/scenario-run';
import { runKillCycles } from '../src/scenarios/kill-cycles';

describe('crash loop: the standalone broker SIGKILLed at random moments under mixed HTTP, batch and stream load', () => {
  const run = new ScenarioRun('crash-loop', 1, 'Crash loop (SIGKILL)');

  it(`loses, duplicates, reorders and garbles nothing acknowledged across ${run.sizes.crashCycles} cycles`, async () => {
    let failure: unknown;
    try {
      await runKillCycles(run, { cycles: run.sizes.crashCycles, powerLoss: false });
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      run.finish(failure);
    }
  });
});

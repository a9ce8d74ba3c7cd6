import { ScenarioRun } from '../src/harness/scenario-run';
import { runKillCycles } from '../src/scenarios/kill-cycles';

describe('power loss: after each SIGKILL, unsynced file tails are cut back and zero- or garbage-filled', () => {
  const run = new ScenarioRun('power-loss', 2, 'Power loss (SIGKILL, then unsynced tails cut)');

  it(`keeps every acknowledged message across ${run.sizes.powerLossCycles} simulated power losses`, async () => {
    let failure: unknown;
    try {
      await runKillCycles(run, { cycles: run.sizes.powerLossCycles, powerLoss: true });
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      run.finish(failure);
    }
  });
});

import { ScenarioRun } from '../src/harness/scenario-run';
import { runTerminateCrash } from '../src/scenarios/terminate-crash';

describe('terminate crash: the broker SIGKILLed on the headers of a pull terminate answered 200', () => {
  const run = new ScenarioRun('terminate-crash', 11, 'Terminate crash (SIGKILL on a terminate answered 200)');

  it(`dead-letters every answered terminate exactly once and never delivers it again, across ${run.sizes.terminateCrashCycles} kills`, async () => {
    let failure: unknown;
    try {
      await runTerminateCrash(run, run.sizes.terminateCrashCycles);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      run.finish(failure);
    }
  });
});

import { ScenarioRun } from '../src/harness/scenario-run';
import { runBoundedDisk } from '../src/scenarios/bounded-disk';

describe('bounded disk: continuous publishing and consuming under small retention limits', () => {
  const run = new ScenarioRun('bounded-disk', 9, 'Bounded disk (retention under continuous load)');

  it(`keeps the topics within retention.bytes and delivers everything acknowledged for ${run.sizes.boundedDiskMs / 1000} s`, async () => {
    let failure: unknown;
    try {
      await runBoundedDisk(run);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      run.finish(failure);
    }
  });
});

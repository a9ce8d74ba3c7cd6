import { ScenarioRun } from '../src/harness/scenario-run';
import { runDiskFull } from '../src/scenarios/disk-full';

describe('disk full: the data root on a small file system', () => {
  const run = new ScenarioRun('disk-full', 4, 'Disk full');

  it('refuses with 503 when full, loses nothing acknowledged, and publishes again once space is freed', async () => {
    let failure: unknown;
    try {
      await runDiskFull(run);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      run.finish(failure);
    }
  });
});

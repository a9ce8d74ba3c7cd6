import { ScenarioRun } from '../src/harness/scenario-run';
import { runFsyncEio } from '../src/scenarios/fsync-eio';

describe('fsync EIO: the broker whose journal and flush fsyncs fail (test-only hook)', () => {
  const run = new ScenarioRun('fsync-eio', 12, 'fsync EIO (journal and flush fsyncs failing)');

  it('never acknowledges what a failed fsync covered, refuses writes as documented, and keeps everything acknowledged', async () => {
    let failure: unknown;
    try {
      await runFsyncEio(run);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      run.finish(failure);
    }
  });
});

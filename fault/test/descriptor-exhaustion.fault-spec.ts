import { ScenarioRun } from '../src/harness/scenario-run';
import { runDescriptorExhaustion } from '../src/scenarios/descriptor-exhaustion';

describe('descriptor exhaustion: the broker under prlimit --nofile', () => {
  const run = new ScenarioRun('descriptor-exhaustion', 10, 'Descriptor exhaustion (prlimit)');

  it('keeps its storage within a budget, refuses rather than wedges when descriptors run out, and recovers without a restart', async () => {
    let failure: unknown;
    try {
      await runDescriptorExhaustion(run);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      run.finish(failure);
    }
  });
});

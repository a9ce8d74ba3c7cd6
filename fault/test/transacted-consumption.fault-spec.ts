import { ScenarioRun } from '../src/harness/scenario-run';
import { runTransactedConsumption } from '../src/scenarios/transacted-consumption';

describe('transacted consumption: the broker and the consumer SIGKILLed at random points during the transactions', () => {
  const run = new ScenarioRun('transacted-consumption', 9, 'Transacted consumption (SIGKILL)');

  it(`commits each of ${run.sizes.transactionInputs} inputs with exactly one set of outputs, never half of one`, async () => {
    let failure: unknown;
    try {
      await runTransactedConsumption(run);
      run.expectFiguresMet();
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      run.finish(failure);
    }
  });
});

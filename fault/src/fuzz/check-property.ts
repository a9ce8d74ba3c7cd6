import fc from 'fast-check';
import type { ScenarioRun } from '../harness/scenario-run';

/**
 * Runs a fast-check property with the run's seed, records how it went as a figure, and fails the test with
 * fast-check's report (the shrunk counterexample) when it does not hold.
 */
export async function checkProperty<T>(
  run: ScenarioRun,
  name: string,
  property: fc.IProperty<T> | fc.IAsyncProperty<T>,
  numRuns: number,
): Promise<void> {
  const details = await fc.check(property as fc.IAsyncProperty<T>, { seed: run.seed, numRuns: Math.ceil(numRuns) });
  run.figure(`${name}: runs / failed`, `${details.numRuns} / ${details.failed ? 1 : 0}`);
  if (details.failed) {
    const why = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    run.failWith(`${name} does not hold: ${why.split('\n')[0].slice(0, 300)}`, [
      fc.defaultReportMessage(details)?.slice(0, 3000) ?? 'no report',
    ]);
  }
}

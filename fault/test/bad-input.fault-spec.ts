import { ScenarioRun } from '../src/harness/scenario-run';
import { AdapterOutcome, ANSWER_DEADLINE_MS, HttpAdapter, runBadInput, SLOW_CLIENT_DEADLINE_MS } from '../src/scenarios/bad-input';

const run = new ScenarioRun('bad-input', 5, 'Bad input (hostile requests on every route, both adapters, and the publish stream)');
const outcomes: AdapterOutcome[] = [];
let failure: unknown;

afterAll(() => {
  const total = (key: keyof AdapterOutcome) => outcomes.reduce((sum, outcome) => sum + (outcome[key] as number), 0);
  run.figure('hostile HTTP requests (both adapters)', total('httpRequests'));
  run.figure('hostile publish-stream connections (both brokers)', total('streamConnections'));
  for (const outcome of outcomes) {
    const top = Object.entries(outcome.statuses)
      .sort((a, b) => b[1] - a[1])
      .map(([status, count]) => `${count} × ${status}`)
      .join(', ');
    run.figure(`${outcome.adapter}: answers`, top);
  }
  run.figure('accepted (2xx) although invalid', total('accepted'), 0);
  run.figure('5xx answers', total('serverErrors'), 0);
  run.figure(
    `hangs (no answer within ${ANSWER_DEADLINE_MS / 1000} s; ${SLOW_CLIENT_DEADLINE_MS / 1000} s for stalled clients)`,
    total('hangs'),
    0,
  );
  run.figure('connections closed without an answer (complete requests)', total('closedWithoutAnswer'), 0);
  run.figure('broker crashes', total('crashes'), 0);
  run.figure('hostile requests that changed the data root', total('changedDataRoot'), 0);
  run.figure('files created outside the data root', total('filesOutsideDataRoot'), 0);
  run.finish(failure);
});

describe('bad input: hostile requests get a 4xx in time, change nothing and crash nothing', () => {
  it.each(['fastify', 'express'] as HttpAdapter[])('on %s', async (adapter) => {
    try {
      const outcome = await runBadInput(run, adapter);
      outcomes.push(outcome);
      const { accepted, serverErrors, hangs, closedWithoutAnswer, crashes, changedDataRoot, filesOutsideDataRoot } = outcome;
      run.expectZero(
        `${adapter}: hostile requests`,
        { accepted, serverErrors, hangs, closedWithoutAnswer, crashes, changedDataRoot, filesOutsideDataRoot },
        outcome.failures.slice(0, 60),
      );
    } catch (error) {
      failure ??= error;
      throw error;
    }
  });
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TransactingWorker } from '../consumer/transacting-worker-process';
import { AUDIT_TOPIC, OUTPUT_TOPIC } from '../consumer/transacting-worker';
import { SegmentCache } from '../format/data-root-reader';
import { BrokerRunner } from '../harness/broker-runner';
import { drained } from '../harness/drained';
import { FAULT_POLL_MS } from '../harness/poll-interval';
import type { ScenarioRun } from '../harness/scenario-run';
import { checkTransactions, TransactionCheck } from '../history/transaction-checker';
import { httpRequest } from '../load/http-post';

const INPUT_TOPIC = 'tx.in';
const CONSUMER_ID = 'tx-worker';
/** Transactions in flight at once (one per worker loop), so group commits hold several. */
const IN_FLIGHT = 4;
/** Share of cycles that also SIGKILL the consumer side alone, part-way, with the broker running. */
const CONSUMER_KILL_SHARE = 0.4;
/** A cycle ends (with its SIGKILL) at its random count of commits, or after this long whatever the count. */
const CYCLE_MAX_MS = 5_000;
const PUBLISH_BATCH = 100;
/** Time to commit whatever is left after the last restart. */
const DRAIN_TIMEOUT_MS = 120_000;

/**
 * Transacted consumption across crashes: inputs are published once, then a consumer process commits each with two
 * outputs in one transaction, while the broker is SIGKILLed at random points (the consumer with it, in a random
 * order) and, in some cycles, the consumer alone. After every restart the files must show each input settled with
 * exactly one copy of both outputs, or unsettled with none; at the end every input is settled with one set.
 */
export async function runTransactedConsumption(run: ScenarioRun): Promise<void> {
  const inputs = run.sizes.transactionInputs;
  const rootDir = join(run.workDir, 'data');
  const runner = new BrokerRunner(rootDir, join(run.workDir, 'logs'));
  const random = run.random.fork('kills');
  const cache = new SegmentCache();
  let worker: TransactingWorker | undefined;
  let committed = 0;
  const kills = { broker: 0, consumer: 0 };
  const check = (where: string): TransactionCheck => {
    const result = checkTransactions(
      rootDir,
      { topic: INPUT_TOPIC, consumerId: CONSUMER_ID, count: inputs },
      [OUTPUT_TOPIC, AUDIT_TOPIC],
      cache,
    );
    const { settledWithoutOutputs, outputsWithoutSettlement, duplicateOutputs, unreadableOutputs } = result;
    run.expectZero(where, { settledWithoutOutputs, outputsWithoutSettlement, duplicateOutputs, unreadableOutputs }, result.problems);
    return result;
  };
  const stopWorker = async () => {
    if (!worker) return;
    await worker.kill();
    committed += worker.committed;
    worker = undefined;
  };
  try {
    mkdirSync(rootDir, { recursive: true });
    writeFileSync(
      join(rootDir, 'dispatchers.json'),
      JSON.stringify([{ consumerId: CONSUMER_ID, pattern: INPUT_TOPIC, maxDeliveries: -1 }]),
    );
    await runner.start();
    await publishInputs(runner.current.url, inputs);
    const perCycle = Math.max(1, Math.round(inputs / run.sizes.transactionCycles));
    let settled = 0;
    for (let cycle = 0; cycle < run.sizes.transactionCycles && settled < inputs; cycle++) {
      worker = TransactingWorker.start(runner.current.url, CONSUMER_ID, IN_FLIGHT);
      if (random.chance(CONSUMER_KILL_SHARE)) {
        const running = worker;
        await until(() => running.committed >= random.int(0, perCycle), CYCLE_MAX_MS);
        await stopWorker();
        kills.consumer++;
        worker = TransactingWorker.start(runner.current.url, CONSUMER_ID, IN_FLIGHT);
      }
      const running = worker;
      const target = random.int(1, 2 * perCycle);
      await until(() => running.committed >= target, CYCLE_MAX_MS);
      // Both sides die: in either order, so the broker sometimes outlives the consumer by a request or two.
      if (random.chance(0.5)) await stopWorker();
      await runner.kill();
      await stopWorker();
      kills.broker++;
      await runner.start();
      settled = check(`after broker SIGKILL ${kills.broker}`).settled;
    }
    worker = TransactingWorker.start(runner.current.url, CONSUMER_ID, IN_FLIGHT);
    await drained(runner, CONSUMER_ID, [INPUT_TOPIC], DRAIN_TIMEOUT_MS);
    await stopWorker();
    const exit = await runner.stop();
    run.expectThat(exit.clean, `the final SIGTERM ended the broker with code ${exit.code}, signal ${exit.signal}`);
    const final = check('after the last transaction');
    run.expectThat(
      final.committed === inputs,
      `${inputs - final.committed} of ${inputs} inputs are not committed with exactly one set of outputs at the end`,
      final.problems,
    );
  } finally {
    await stopWorker().catch(() => undefined);
    if (runner.running) await runner.kill().catch(() => undefined);
    run.figure('inputs, each committed by one transaction with two outputs', inputs);
    run.figure('broker SIGKILLs (the consumer killed with it)', kills.broker);
    run.figure('consumer SIGKILLs alone (the broker running)', kills.consumer);
    run.figure('transactions the consumer saw committed', committed);
  }
}

async function publishInputs(url: string, count: number): Promise<void> {
  for (let first = 0; first < count; first += PUBLISH_BATCH) {
    const messages = Array.from({ length: Math.min(PUBLISH_BATCH, count - first) }, (_, i) => ({
      topic: INPUT_TOPIC,
      content: { n: first + i },
    }));
    const answer = await httpRequest(`${url}/mmmq/messages/batch`, { body: JSON.stringify({ messages }), timeoutMs: 30_000 });
    if (answer.status !== 200) throw new Error(`Publishing the inputs answered ${answer.status}: ${answer.body.slice(0, 200)}`);
  }
}

/** Polls `condition` until it holds or `maxMs` passed (either ends the wait: a cycle's end is not a failure). */
async function until(condition: () => boolean, maxMs: number): Promise<void> {
  const end = Date.now() + maxMs;
  while (!condition() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, FAULT_POLL_MS / 10));
}

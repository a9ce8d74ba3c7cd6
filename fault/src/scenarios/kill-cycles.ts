import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RecordingConsumer } from '../consumer/recording-consumer';
import { readDataRoot, SegmentCache, StoredTopic } from '../format/data-root-reader';
import { BrokerRunner } from '../harness/broker-runner';
import type { ScenarioRun } from '../harness/scenario-run';
import { drained } from '../harness/drained';
import { checkDeliveries, DeliveryCheck, inspectDelivery } from '../history/delivery-checker';
import { checkLog, LogCheck } from '../history/log-checker';
import { Attempt, PublishHistory } from '../history/publish-history';
import { MixedLoad } from '../load/mixed-load';
import type { Random } from '../random';
import { PowerCuts } from './power-cuts';

export interface KillCycleOptions {
  /** SIGKILLs under load; SIGKILLs during start-up come on top. */
  cycles: number;
  /** After each SIGKILL, also cut everything past the durable floors (docs/reliability.md, "power loss"). */
  powerLoss: boolean;
  /** The topics a cycle publishes to. */
  topics(cycle: number): readonly string[];
  /** Share of batches whose messages name several topics. */
  multiTopicShare: number;
  /** Small segments, so kills and cuts also land around rotations. */
  segmentMaxBytes: number;
}

const CLIENTS = { http: 3, batch: 1, stream: 1 };
const MAX_BATCH = 10;
const STREAM_WINDOW = 16;
/** A cycle's load runs this long (uniformly drawn) before the SIGKILL. */
const LOAD_MS = { min: 30, max: 1_500 };
/** Share of cycles whose SIGKILL lands while the broker starts (recovering), with no load. */
const STARTUP_KILL_SHARE = 0.1;
const STARTUP_KILL_MS = { min: 0, max: 700 };
/** Unknown outcomes a producer publishes again (same id and content) at the start of the next cycle. */
const RETRIES_PER_CYCLE = 25;
/** Time for the consumer to receive everything after the last restart. */
const DRAIN_TIMEOUT_MS = 180_000;
const CONSUMER_ID = 'fault-checker';

/**
 * The crash loop (and, with `powerLoss`, the power-loss loop): cycles of start → check the files → mixed HTTP /
 * batch / stream load on the cycle's topics (batches over several topics among them) → SIGKILL at a random
 * moment [→ cut everything past the durable floors] → restart. A push consumer receives everything throughout. At the end the consumer
 * must have every acknowledged message, and the files and the pushes must agree with the history. The first
 * check that fails ends the run (its files are kept); the figures gathered so far are reported either way.
 */
export async function runKillCycles(run: ScenarioRun, options: KillCycleOptions): Promise<void> {
  const cycles = new KillCycles(run, options);
  try {
    await cycles.run();
  } finally {
    await cycles.close();
    cycles.report();
  }
}

class KillCycles {
  private readonly rootDir: string;
  private readonly history = new PublishHistory();
  private readonly consumer = new RecordingConsumer((message, body) => inspectDelivery(this.history, message, body));
  private readonly runner: BrokerRunner;
  private readonly faults: Random;
  private readonly segments = new SegmentCache();
  private readonly retried = new Set<string>();
  private readonly restartMs: number[] = [];
  private readonly powerCuts: PowerCuts;
  private loadCycles = 0;
  private startupKills = 0;
  private retries = 0;
  private crashes = 0;
  private log?: LogCheck;
  private topics?: Map<string, StoredTopic>;
  private pushes?: DeliveryCheck;
  private shutdown?: string;

  constructor(
    private readonly scenario: ScenarioRun,
    private readonly options: KillCycleOptions,
  ) {
    this.rootDir = join(scenario.workDir, 'data');
    this.runner = new BrokerRunner(this.rootDir, join(scenario.workDir, 'logs'), {
      MMMQ_SEGMENT_MAX_BYTES: String(options.segmentMaxBytes),
    });
    this.faults = scenario.random.fork('faults');
    this.powerCuts = new PowerCuts(scenario, this.rootDir, this.segments);
  }

  async run(): Promise<void> {
    mkdirSync(this.rootDir, { recursive: true });
    await this.consumer.start();
    writeFileSync(join(this.rootDir, 'dispatchers.json'), JSON.stringify([this.consumer.dispatcher(CONSUMER_ID)]));
    for (let cycle = 0; this.loadCycles < this.options.cycles; cycle++) await this.cycle(cycle);
    await this.finalCheck();
  }

  private async cycle(cycle: number): Promise<void> {
    const { faults, history, runner } = this;
    this.consumer.epoch = cycle;
    if (cycle > 0 && faults.chance(STARTUP_KILL_SHARE)) {
      await runner.startAndKillAfter(faults.int(STARTUP_KILL_MS.min, STARTUP_KILL_MS.max));
      this.startupKills++;
      return;
    }
    const broker = await this.restart(`cycle ${cycle}, after the restart`);
    const retry = this.unknownOutcomes().slice(0, RETRIES_PER_CYCLE);
    retry.forEach((attempt) => this.retried.add(attempt.id));
    this.retries += retry.length;
    let killing = false;
    const crashed = broker.exited.then(() => !killing);
    const load = new MixedLoad({
      httpUrl: broker.url,
      streamUrl: broker.streamUrl,
      history,
      random: this.scenario.random.fork(`load-${cycle}`),
      cycle,
      topics: this.options.topics(cycle),
      clients: CLIENTS,
      retries: retry,
      maxBatch: MAX_BATCH,
      multiTopicShare: this.options.multiTopicShare,
      streamWindow: STREAM_WINDOW,
    });
    const moment = new Promise((resolve) => setTimeout(resolve, faults.int(LOAD_MS.min, LOAD_MS.max)));
    await Promise.race([moment, load.acknowledgedAtLeast(this.scenario.sizes.acksPerCycle), load.done]);
    killing = true;
    await runner.kill();
    await load.done;
    history.abandonPending();
    if (await crashed) this.crashes++;
    this.scenario.expectThat(this.crashes === 0, `cycle ${cycle}: the broker exited by itself under load (see its log)`);
    this.loadCycles++;
    if (this.options.powerLoss) this.powerCuts.apply(`cycle ${cycle}`, history, this.consumer, faults.fork(`cut-${cycle}`));
  }

  /** Starts the broker and checks the recovered files before anything new is published. */
  private async restart(where: string) {
    const started = Date.now();
    const broker = await this.runner.start();
    this.restartMs.push(Date.now() - started);
    this.topics = readDataRoot(this.rootDir, this.segments);
    this.log = checkLog(this.history, this.topics);
    this.scenario.expectZero(where, logFailures(this.log), this.log.problems);
    return broker;
  }

  private async finalCheck(): Promise<void> {
    this.consumer.epoch = this.options.cycles;
    await this.restart('after the last restart');
    // Topics with an acknowledged message exist; one whose every publish was cut short by a kill may not.
    await drained(this.runner, CONSUMER_ID, new Set(this.history.acked().map((attempt) => attempt.topic)), DRAIN_TIMEOUT_MS);
    const exit = await this.runner.stop();
    this.shutdown = exit.clean ? 'yes' : `no (code ${exit.code}, signal ${exit.signal})`;
    this.topics = readDataRoot(this.rootDir, this.segments);
    this.log = checkLog(this.history, this.topics);
    this.pushes = checkDeliveries(this.history, this.consumer.deliveries, this.topics);
    const { scenario, log, pushes, consumer } = this;
    scenario.expectZero('after the last cycle (files)', logFailures(log), log.problems);
    scenario.expectZero(
      'after the last cycle (pushes)',
      { ...deliveryFailures(pushes), malformedPushes: consumer.malformed.length },
      pushes.problems,
    );
    scenario.expectThat(exit.clean, `the final SIGTERM ended the broker with code ${exit.code}, signal ${exit.signal}`);
  }

  async close(): Promise<void> {
    if (this.runner.running) await this.runner.kill();
    await this.consumer.stop();
  }

  /** The figures for docs/reliability.md, as far as the run got. */
  report(): void {
    const { scenario, history, log, pushes, topics } = this;
    const figure = scenario.figure.bind(scenario);
    figure(this.options.powerLoss ? 'SIGKILL + power-loss cycles under load' : 'SIGKILL cycles under load', this.loadCycles);
    figure('SIGKILLs during start-up (recovery)', this.startupKills);
    if (this.options.powerLoss) this.powerCuts.report();
    figure('publishes acked', history.count('acked'));
    figure('publishes nacked', history.count('nacked'));
    figure('publishes unknown (connection lost at the kill)', history.count('unknown'));
    figure('broker crashes (exited by itself)', this.crashes, 0);
    if (topics) {
      const segments = [...topics.values()].reduce((n, topic) => n + topic.segments.length, 0);
      figure('topics / segments at the end', `${topics.size} / ${segments}`);
    }
    if (log) {
      figure('unknown outcomes found stored / absent', `${log.unknownRecovered} / ${log.unknownAbsent}`);
      figure('producer retries of unknown outcomes (same id)', this.retries);
      figure('copies explained by a retry', log.retryCopies);
      figure('lost (acked, not intact at its offset)', log.lost, 0);
      figure('garbage in the files (unreadable or never published)', log.garbage, 0);
      figure('duplicates not explained by a retry', log.duplicates, 0);
      figure('refused publishes stored', log.refusedStored, 0);
      figure('order violations (per producer session and topic)', log.orderViolations, 0);
      const batches = log.batches;
      figure('batches sent / naming several topics', `${batches.batches} / ${batches.multiTopic}`);
      figure('unacknowledged batches stored whole / not at all', `${batches.storedWhole} / ${batches.storedNone}`);
      figure('unacknowledged multi-topic batches', batches.unackedMultiTopic);
      figure('unacknowledged batches stored in part (any topic)', batches.partial, 0);
      figure('of which multi-topic (visible in one topic, not another)', batches.partialMultiTopic, 0);
    }
    if (pushes) {
      figure('pushes received (incl. redeliveries)', pushes.deliveries);
      figure('redeliveries after restarts', pushes.redeliveries);
      figure('garbage served to the consumer', pushes.garbageServed, 0);
      figure('acked but never pushed', pushes.ackedNotDelivered, 0);
      figure('pushed, then replaced in the log', pushes.deliveredThenChanged, 0);
      figure('readable entries skipped by delivery', pushes.skipped, 0);
      figure('malformed pushes', this.consumer.malformed.length, 0);
    }
    if (this.restartMs.length > 0) {
      figure('restart to ready, median / max (ms)', `${median(this.restartMs)} / ${Math.max(...this.restartMs)}`);
    }
    if (this.shutdown) figure('final SIGTERM shut down cleanly', this.shutdown);
  }

  /**
   * Single publishes whose outcome is unknown, never acknowledged under that id, and not retried yet. A batch's
   * messages are never retried one by one: the all-or-nothing check of batches must see only the batch's own.
   */
  private unknownOutcomes(): Attempt[] {
    return this.history.attempts.filter(
      (attempt) =>
        attempt.outcome === 'unknown' &&
        attempt.batch === undefined &&
        !this.retried.has(attempt.id) &&
        this.history.attemptsOf(attempt.id).every((other) => other.outcome !== 'acked'),
    );
  }
}

export function logFailures(log: LogCheck): Record<string, number> {
  const { lost, garbage, duplicates, refusedStored, orderViolations } = log;
  return { lost, garbage, duplicates, refusedStored, orderViolations, partialBatches: log.batches.partial };
}

export function deliveryFailures(pushes: DeliveryCheck): Record<string, number> {
  const { garbageServed, ackedNotDelivered, deliveredThenChanged, skipped } = pushes;
  return { garbageServed, ackedNotDelivered, deliveredThenChanged, skipped };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

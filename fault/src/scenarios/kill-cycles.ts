import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_FLUSH_INTERVAL_MS } from '@mmmq/broker';
import { RecordingConsumer } from '../consumer/recording-consumer';
import { readDataRoot, SegmentCache, StoredTopic } from '../format/data-root-reader';
import { BrokerRunner } from '../harness/broker-runner';
import type { ScenarioRun } from '../harness/scenario-run';
import { drained } from '../harness/drained';
import { DirMirror } from '../harness/mirror-dir';
import { PhaseClock } from '../harness/phase-clock';
import { checkDeliveries, DeliveryCheck, inspectDelivery } from '../history/delivery-checker';
import { checkLog, LogCheck } from '../history/log-checker';
import { Attempt, PublishHistory } from '../history/publish-history';
import { MixedLoad } from '../load/mixed-load';
import { deliveryFailures, logFailures, reportDeliveryCheck, reportLogCheck } from '../report/check-figures';
import type { Random } from '../random';
import { JournalAtKill } from './journal-at-kill';

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
  /** Cycles (spread evenly) whose load spans the broker's periodic flush, so that kills also land around flushes. */
  flushCycles: number;
  /** More `MMMQ_*` settings of the broker (a flush policy). */
  env?: Record<string, string>;
  /**
   * Consumer ids besides the checker's, each subscribed to every topic on the same consumer host, which opts in to
   * shared pushes and settles some parts only in part (a `503` line for the rest): one consumer app with many
   * listeners (docs/delivery.md, "Shared pushes"). None: the checker alone, with per-subscription pushes.
   */
  sharedListeners?: readonly string[];
}

const CLIENTS = { http: 3, batch: 1, stream: 1 };
const MAX_BATCH = 10;
const STREAM_WINDOW = 16;
/** A cycle's load runs this long (uniformly drawn) before the SIGKILL. */
const LOAD_MS = { min: 30, max: 1_500 };
/**
 * A flush cycle waits idle until this long before the broker's flush timer fires (DEFAULT_FLUSH_INTERVAL_MS after
 * its journal opened, a little before it was ready), then loads it for {@link FLUSH_LOAD_MS}.
 */
const FLUSH_LEAD_MS = 1_000;
const FLUSH_LOAD_MS = { min: 800, max: 4_000 };
/** Share of cycles whose SIGKILL lands while the broker starts (recovering), with no load. */
const STARTUP_KILL_SHARE = 0.1;
const STARTUP_KILL_MS = { min: 0, max: 700 };
/** Unknown outcomes a producer publishes again (same id and content) at the start of the next cycle. */
const RETRIES_PER_CYCLE = 25;
/** Time for the consumer to receive everything after the last restart. */
const DRAIN_TIMEOUT_MS = 180_000;
const CONSUMER_ID = 'fault-checker';
/** Beside `data/` in the work directory (kept with the artifacts of a failed run): the data root before the last start. */
const BEFORE_START_DIR = 'data-before-last-start';

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
  private readonly consumer: RecordingConsumer;
  private readonly runner: BrokerRunner;
  private readonly faults: Random;
  private readonly segments = new SegmentCache();
  private readonly retried = new Set<string>();
  private readonly restartMs: number[] = [];
  private readonly journal: JournalAtKill;
  private readonly beforeStart: DirMirror;
  private readonly clock = new PhaseClock();
  private loadCycles = 0;
  private flushCycles = 0;
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
    const shared = (options.sharedListeners?.length ?? 0) > 0;
    this.consumer = new RecordingConsumer((message, body) => inspectDelivery(this.history, message, body), {
      shared,
      partialSettlement: shared,
    });
    this.runner = new BrokerRunner(this.rootDir, join(scenario.workDir, 'logs'), {
      MMMQ_SEGMENT_MAX_BYTES: String(options.segmentMaxBytes),
      ...options.env,
    });
    this.faults = scenario.random.fork('faults');
    this.journal = new JournalAtKill(scenario, this.rootDir, this.segments, options.powerLoss);
    this.beforeStart = new DirMirror(this.rootDir, join(scenario.workDir, BEFORE_START_DIR));
  }

  async run(): Promise<void> {
    mkdirSync(this.rootDir, { recursive: true });
    await this.consumer.start();
    const dispatchers = this.consumerIds.map((id) => this.consumer.dispatcher(id));
    writeFileSync(join(this.rootDir, 'dispatchers.json'), JSON.stringify(dispatchers));
    let cycle = 0;
    for (; this.loadCycles < this.options.cycles; cycle++) await this.cycle(cycle);
    // Start-up kills make more cycles than load cycles: the last broker gets an epoch no cycle had.
    await this.finalCheck(cycle);
  }

  private async cycle(cycle: number): Promise<void> {
    const { faults, history, runner } = this;
    this.consumer.epoch = cycle;
    if (cycle > 0 && faults.chance(STARTUP_KILL_SHARE)) {
      this.keepBeforeStart();
      await this.clock.time('start-up kills', () => runner.startAndKillAfter(faults.int(STARTUP_KILL_MS.min, STARTUP_KILL_MS.max)));
      this.startupKills++;
      return;
    }
    const broker = await this.restart(`cycle ${cycle}, after the restart`);
    const readyAt = Date.now();
    await this.journal.afterStart(runner);
    const aroundFlush = this.isFlushCycle();
    if (aroundFlush)
      await this.clock.time('idle before a flush', () => sleep(DEFAULT_FLUSH_INTERVAL_MS - FLUSH_LEAD_MS - (Date.now() - readyAt)));
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
    const { min, max } = aroundFlush ? FLUSH_LOAD_MS : LOAD_MS;
    const moment = sleep(faults.int(min, max));
    await this.clock.time('load', () => Promise.race([moment, load.acknowledgedAtLeast(this.scenario.sizes.acksPerCycle), load.done]));
    await this.journal.beforeKill(runner);
    killing = true;
    await runner.kill();
    await load.done;
    history.abandonPending();
    if (await crashed) this.crashes++;
    this.scenario.expectThat(this.crashes === 0, `cycle ${cycle}: the broker exited by itself under load (see its log)`);
    this.loadCycles++;
    if (aroundFlush) this.flushCycles++;
    this.clock.time(this.options.powerLoss ? 'journal audit and power cut' : 'journal audit', () =>
      this.journal.afterKill(`cycle ${cycle}`, history, this.consumer, faults.fork(`cut-${cycle}`)),
    );
  }

  /** Whether the next load cycle is one of the `flushCycles`, spread evenly over the run. */
  private isFlushCycle(): boolean {
    const { cycles, flushCycles } = this.options;
    if (flushCycles <= 0) return false;
    const spacing = Math.max(1, Math.floor(cycles / flushCycles));
    return this.loadCycles % spacing === Math.floor(spacing / 2) && this.flushCycles < flushCycles;
  }

  /** Starts the broker and checks the recovered files before anything new is published. */
  private async restart(where: string) {
    this.keepBeforeStart();
    const started = Date.now();
    const broker = await this.clock.time('restarts', () => this.runner.start());
    this.restartMs.push(Date.now() - started);
    this.topics = this.clock.time('checks', () => readDataRoot(this.rootDir, this.segments));
    this.log = this.clock.time('checks', () => checkLog(this.history, this.topics!));
    this.scenario.expectZero(where, logFailures(this.log), this.log.problems);
    return broker;
  }

  private async finalCheck(epoch: number): Promise<void> {
    this.consumer.epoch = epoch;
    await this.restart('after the last restart');
    // Topics with an acknowledged message exist; one whose every publish was cut short by a kill may not.
    const topics = new Set(this.history.acked().map((attempt) => attempt.topic));
    for (const id of this.consumerIds) await this.clock.time('final drain', () => drained(this.runner, id, topics, DRAIN_TIMEOUT_MS));
    const exit = await this.runner.stop();
    this.shutdown = exit.clean ? 'yes' : `no (code ${exit.code}, signal ${exit.signal})`;
    this.topics = readDataRoot(this.rootDir, this.segments);
    this.log = checkLog(this.history, this.topics);
    this.pushes = checkDeliveries(this.history, this.consumer.deliveries, this.topics, this.consumerIds);
    const { scenario, log, pushes, consumer } = this;
    scenario.expectZero('after the last cycle (files)', logFailures(log), log.problems);
    scenario.expectZero(
      'after the last cycle (pushes)',
      { ...deliveryFailures(pushes), malformedPushes: consumer.malformed.length },
      pushes.problems,
    );
    scenario.expectThat(exit.clean, `the final SIGTERM ended the broker with code ${exit.code}, signal ${exit.signal}`);
  }

  /** The checker's consumer id, then the shared listeners'. */
  private get consumerIds(): string[] {
    return [CONSUMER_ID, ...(this.options.sharedListeners ?? [])];
  }

  /** The data root as the next start finds it, for the post-mortem of a start that fails or a check after it. */
  private keepBeforeStart(): void {
    this.beforeStart.sync();
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
    if (this.options.flushCycles > 0) figure('cycles whose load spanned the broker’s periodic flush', this.flushCycles);
    this.journal.report();
    figure('publishes acked', history.count('acked'));
    figure('publishes nacked', history.count('nacked'));
    figure('publishes unknown (connection lost at the kill)', history.count('unknown'));
    figure('broker crashes (exited by itself)', this.crashes, 0);
    if (topics) {
      const segments = [...topics.values()].reduce((n, topic) => n + topic.segments.length, 0);
      figure('topics / segments at the end', `${topics.size} / ${segments}`);
    }
    if (log) reportLogCheck(scenario, log, this.retries);
    if (pushes) reportDeliveryCheck(scenario, pushes, this.consumer.malformed.length);
    if (this.options.sharedListeners?.length) {
      figure('consumer ids on the one consumer host (shared pushes)', this.consumerIds.length);
      figure('shared pushes received', this.consumer.sharedPushes);
      figure('messages a shared push’s part refused with a 503 line (partial settlement)', this.consumer.refusedInPart);
    }
    if (this.restartMs.length > 0) {
      figure('restart to ready, median / max (ms)', `${median(this.restartMs)} / ${Math.max(...this.restartMs)}`);
    }
    if (this.shutdown) figure('final SIGTERM shut down cleanly', this.shutdown);
    const time = this.clock.summary();
    figure(`time: ${time.phases} (s)`, time.seconds);
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

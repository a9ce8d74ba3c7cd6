import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RecordingConsumer } from '../consumer/recording-consumer';
import { readDataRoot, StoredTopic } from '../format/data-root-reader';
import { readEnvelope } from '../format/envelope';
import { readJournal } from '../format/journal-reader';
import { CHECKPOINT_DAMAGES } from '../faults/state-file-damage';
import type { SegmentDamage } from '../faults/segment-damage';
import { damageJournalRecords, JournalDamageDone } from '../faults/journal-damage';
import { BrokerRunner } from '../harness/broker-runner';
import type { ScenarioRun } from '../harness/scenario-run';
import { drained } from '../harness/drained';
import { checkCheckpointRestart } from '../history/checkpoint-restart-checker';
import { inspectDelivery } from '../history/delivery-checker';
import { PublishHistory } from '../history/publish-history';
import { fillTopics, publishOneEach } from '../load/fill-topics';

/** Small segments: every topic gets several closed segments and an open one. */
export const CORRUPTION_SEGMENT_MAX_BYTES = 4096;
const CHECKER_ID = 'fault-checker';
const CHECKPOINT_CONSUMER_ID = 'fault-checkpoints';
const DRAIN_TIMEOUT_MS = 60_000;

/** Per damaged topic: what was damaged and what came of it. */
export interface DamageOutcome {
  damage: string;
  topic: string;
  entries: number;
  touched: number;
  /** Acknowledged entries whose bytes the damage did not touch, yet are not served at their offset. */
  intactLost: number;
  /** Touched entries the journal still held (above its last FLUSHED): recovery replays them. */
  journaled: number;
  /** Of those, entries not served at their offset with their bytes: the replay must restore them. */
  journaledLost: number;
  /** Same, read from the files after the broker stopped (recovery deleted or moved them). */
  intactLostOnDisk: number;
  /** Pushes of anything but the message acknowledged at that offset. */
  garbageServed: number;
  /** A publish after recovery was given the offset of an intact entry. */
  offsetsReused: number;
  /** The publish after recovery was refused, or never pushed. */
  newMessageProblems: number;
  /** Damaged checkpoints: offsets below the old tail the consumer did not get again after the restart (it must restart at 0). */
  checkpointNotRestarted: number;
  /** Damaged checkpoints the broker did not warn about (naming topic and consumer). */
  checkpointDamageUnreported: number;
  problems: string[];
}

/**
 * One data root, several damages at once (one per topic), one broker start: publish, stop, damage, start with a
 * fresh push consumer subscribed to everything, let it drain, publish once more per topic, stop, and compare
 * what was served (and what the files hold) with what was acknowledged.
 */
export class DamagedRoot {
  readonly history = new PublishHistory();
  readonly checker = new RecordingConsumer((message, body) => inspectDelivery(this.history, message, body));
  readonly checkpointConsumer = new RecordingConsumer((message, body) => inspectDelivery(this.history, message, body));
  readonly runner: BrokerRunner;
  readonly rootDir: string;
  private readonly touched = new Map<string, Set<number>>();
  /** Per topic, the first offset the journal still held when the damage was done (f_T). */
  private readonly journaledFrom = new Map<string, number>();
  private readonly damageOf = new Map<string, string>();
  private readonly checkpointTopics: string[] = [];
  /** Per checkpoint topic: its tail when damaged, and whether the damage must be warned about. */
  private readonly checkpointDamaged = new Map<string, { tail: number; warns: boolean }>();
  /** What the restarted broker printed (its warnings about damage). */
  private restartOutput = '';

  /**
   * `end`: how the broker that filled the topics ends before the damage — SIGTERM (its last flush makes the topic
   * files durable and the journal holds nothing to replay) or SIGKILL (the journal still holds what it wrote since
   * its last flush, and recovery replays it over the damage). `label` is appended to the damage names reported.
   */
  constructor(
    private readonly run: ScenarioRun,
    name: string,
    private readonly end: 'sigterm' | 'sigkill' = 'sigterm',
    private readonly label = '',
  ) {
    this.rootDir = join(run.workDir, name, 'data');
    this.runner = new BrokerRunner(this.rootDir, join(run.workDir, name, 'logs'), {
      MMMQ_SEGMENT_MAX_BYTES: String(CORRUPTION_SEGMENT_MAX_BYTES),
    });
  }

  topicFor(damage: string, variant: number, prefix = 'corrupt'): string {
    const topic = `${prefix}.${damage}.v${variant}`;
    this.damageOf.set(topic, damage);
    if (prefix === 'ckpt') this.checkpointTopics.push(topic);
    return topic;
  }

  /** Starts the broker, fills every topic, lets the checkpoint consumer catch up, stops (or kills) it. */
  async build(perTopic: number): Promise<void> {
    mkdirSync(this.rootDir, { recursive: true });
    await this.checker.start();
    await this.checkpointConsumer.start();
    this.writeDispatchers(false);
    const broker = await this.runner.start();
    await fillTopics(broker.url, this.history, [...this.damageOf.keys()], perTopic, this.run.random.fork('fill'));
    await this.drained(CHECKPOINT_CONSUMER_ID);
    if (this.end === 'sigkill') await this.runner.kill();
    else await this.runner.stop();
  }

  /** Applies one segment damage per topic, with the variant's own random source. */
  damage(kinds: readonly SegmentDamage[]): void {
    const topics = readDataRoot(this.rootDir);
    for (const [topic, offset] of readJournal(this.rootDir).firstUnflushedOffset) this.journaledFrom.set(topic, offset);
    for (const [name, damageName] of this.damageOf) {
      const kind = kinds.find((candidate) => candidate.name === damageName);
      if (!kind) continue;
      const topic = topics.get(name);
      if (!topic || topic.segments.length < 2) throw new Error(`${name} needs at least two segments to be damaged`);
      this.touched.set(name, kind.apply(topic, this.run.random.fork(name)));
    }
  }

  /** Flips a bit in `count` journal records above the last FLUSHED and cuts the topic files back to their floors. */
  damageJournal(count: number): JournalDamageDone {
    const done = damageJournalRecords(this.rootDir, count, this.run.random.fork('journal'));
    for (const topic of this.damageOf.keys()) this.touched.set(topic, done.touched.get(topic) ?? new Set());
    return done;
  }

  /** Damages the checkpoint consumer's checkpoint in every checkpoint topic. */
  damageCheckpoints(): void {
    const topics = readDataRoot(this.rootDir);
    for (const name of this.checkpointTopics) {
      const damage = CHECKPOINT_DAMAGES.find((candidate) => candidate.name === this.damageOf.get(name));
      const topic = topics.get(name);
      if (!damage || !topic) throw new Error(`No checkpoint damage for ${name}`);
      const path = join(topic.dir, 'checkpoints', `${CHECKPOINT_CONSUMER_ID}.checkpoint`);
      if (!existsSync(path)) throw new Error(`${path} was not written before the damage`);
      damage.apply(path, topic.tailOffset, this.run.random.fork(name));
      this.checkpointDamaged.set(name, { tail: topic.tailOffset, warns: damage.warns });
      this.touched.set(name, new Set());
    }
  }

  /** Subscribes the checker (fresh, from offset 0) and restarts; resolves with what the start did. */
  async restart(): Promise<{ started: true } | { started: false; output: string }> {
    this.writeDispatchers(true);
    this.checker.epoch = 1;
    this.checkpointConsumer.epoch = 1;
    try {
      await this.runner.start();
      return { started: true };
    } catch (error) {
      return { started: false, output: (error as Error).message };
    }
  }

  /** With the broker up: drain, publish once per topic, drain again, stop. */
  async exercise(): Promise<void> {
    await this.drained(CHECKER_ID);
    await publishOneEach(this.runner.current.url, this.history, [...this.damageOf.keys()], 1);
    await this.drained(CHECKER_ID);
    await this.drained(CHECKPOINT_CONSUMER_ID).catch(() => undefined); // a stuck subscription is counted below
    this.restartOutput = this.runner.current.output();
    const stop = await this.runner.stop();
    this.run.expectThat(stop.clean, `${this.rootDir}: SIGTERM ended the broker with code ${stop.code}, signal ${stop.signal}`);
  }

  async close(): Promise<void> {
    if (this.runner.running) await this.runner.kill();
    await this.checker.stop();
    await this.checkpointConsumer.stop();
  }

  /** What became of every damaged topic. */
  outcomes(): DamageOutcome[] {
    const files = readDataRoot(this.rootDir);
    return [...this.damageOf].map(([topic, damage]) => this.outcome(topic, `${damage}${this.label}`, files.get(topic)));
  }

  private outcome(topic: string, damage: string, stored: StoredTopic | undefined): DamageOutcome {
    const touched = this.touched.get(topic) ?? new Set<number>();
    const acked = this.history.acked().filter((attempt) => attempt.topic === topic);
    const original = acked.filter((attempt) => attempt.cycle === 0);
    const fresh = acked.filter((attempt) => attempt.cycle === 1);
    const idAt = new Map(acked.map((attempt) => [attempt.offset, attempt.id]));
    const problems: string[] = [];
    const deliveries = this.checker.deliveries.filter((delivery) => delivery.topic === topic);
    const served = new Set(deliveries.map((delivery) => `${delivery.offset}#${delivery.id}`));
    let garbageServed = 0;
    for (const delivery of [...deliveries, ...this.checkpointConsumer.deliveries.filter((d) => d.topic === topic)]) {
      if (delivery.problem || idAt.get(delivery.offset) !== delivery.id) {
        garbageServed++;
        problems.push(
          delivery.problem ?? `${topic}@${delivery.offset} served ${delivery.id}, acknowledged there: ${idAt.get(delivery.offset)}`,
        );
      }
    }
    const intact = original.filter((attempt) => !touched.has(attempt.offset ?? -1));
    const lost = intact.filter((attempt) => !served.has(`${attempt.offset}#${attempt.id}`));
    problems.push(...lost.map((attempt) => `intact ${attempt.id} at ${topic}@${attempt.offset} was not served`));
    const journaledFrom = this.journaledFrom.get(topic) ?? Infinity;
    const journaled = original.filter((attempt) => touched.has(attempt.offset ?? -1) && (attempt.offset ?? -1) >= journaledFrom);
    const journaledLost = journaled.filter((attempt) => !served.has(`${attempt.offset}#${attempt.id}`));
    problems.push(
      ...journaledLost.map(
        (attempt) => `${attempt.id} at ${topic}@${attempt.offset} was damaged while the journal held it, and not restored`,
      ),
    );
    const onDisk = intact.filter((attempt) => {
      const entry = stored?.entries.get(attempt.offset ?? -1);
      return !entry || !('payload' in entry) || readEnvelope(entry.payload)?.id !== attempt.id;
    });
    problems.push(...onDisk.map((attempt) => `intact ${attempt.id} at ${topic}@${attempt.offset} is gone from the files`));
    const intactOffsets = new Set(intact.map((attempt) => attempt.offset));
    const reused = fresh.filter((attempt) => intactOffsets.has(attempt.offset));
    const newProblems = 1 - fresh.length + fresh.filter((attempt) => !served.has(`${attempt.offset}#${attempt.id}`)).length;
    if (newProblems > 0) problems.push(`the publish after recovery to ${topic} was refused or not pushed`);
    // For a damaged checkpoint the data is intact; what may go missing is what its consumer receives.
    let intactLost = lost.length;
    const damaged = this.checkpointDamaged.get(topic);
    const restart = damaged
      ? checkCheckpointRestart(topic, CHECKPOINT_CONSUMER_ID, damaged, this.checkpointConsumer.deliveries, this.restartOutput, problems)
      : { notRestarted: 0, unreported: 0 };
    if (this.checkpointTopics.includes(topic)) {
      const received = new Set(this.checkpointConsumer.deliveries.filter((d) => d.topic === topic).map((d) => d.offset));
      const skipped = acked.filter((attempt) => !received.has(attempt.offset ?? -1));
      if (skipped.length > 0) problems.push(`${skipped.length} offsets of ${topic} never reached ${CHECKPOINT_CONSUMER_ID}`);
      intactLost += skipped.length;
    }
    return {
      damage,
      topic,
      entries: original.length,
      touched: touched.size,
      intactLost,
      journaled: journaled.length,
      journaledLost: journaledLost.length,
      intactLostOnDisk: onDisk.length,
      garbageServed,
      offsetsReused: reused.length,
      newMessageProblems: newProblems,
      checkpointNotRestarted: restart.notRestarted,
      checkpointDamageUnreported: restart.unreported,
      problems,
    };
  }

  private writeDispatchers(withChecker: boolean): void {
    const dispatchers = [this.checkpointConsumer.dispatcher(CHECKPOINT_CONSUMER_ID, 'ckpt.**', 1)];
    if (withChecker) dispatchers.push(this.checker.dispatcher(CHECKER_ID));
    writeFileSync(join(this.rootDir, 'dispatchers.json'), JSON.stringify(dispatchers));
  }

  /** Every topic the consumer is meant to read (the checkpoint consumer reads the `ckpt.` ones) fully pushed. */
  private drained(consumerId: string): Promise<void> {
    const topics = consumerId === CHECKER_ID ? [...this.damageOf.keys()] : this.checkpointTopics;
    return drained(this.runner, consumerId, topics, DRAIN_TIMEOUT_MS);
  }
}

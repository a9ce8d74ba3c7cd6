import type { RecordingConsumer } from '../consumer/recording-consumer';
import { readDataRoot, SegmentCache } from '../format/data-root-reader';
import { readJournal } from '../format/journal-reader';
import { CommitEvidence, durableFloors, LastRecordDurable } from '../faults/durable-floors';
import type { DeliveryEvidence } from '../faults/state-record-evidence';
import { addCut, cutToFloors, emptyCut } from '../faults/power-loss';
import type { BrokerRunner } from '../harness/broker-runner';
import type { ScenarioRun } from '../harness/scenario-run';
import type { PublishHistory } from '../history/publish-history';
import type { Random } from '../random';

/** `GET /mmmq/storage` (docs/storage.md): what the storage layer did since the broker started. */
interface StorageView {
  commits: number;
  flushes: number;
  fsyncs: { journal: number; total: number };
}

/**
 * The journal around each SIGKILL of a kill-cycle run: the broker's own storage counters just before the kill,
 * and after it the journal as the checker decodes it, checked against the format note. With `powerLoss`, the
 * durable floors are derived from it (durable-floors.ts) and everything past them is cut (power-loss.ts).
 */
export class JournalAtKill {
  private readonly total = emptyCut();
  private readonly kept = new Map<LastRecordDurable, number>();
  private readonly counted = { kills: 0, journalFiles: 0, unflushedRecords: 0, unflushedTopics: 0, problems: 0 };
  /** Sums over the kills of what each broker did between its start (ready) and the SIGKILL. */
  private readonly storage = { commits: 0, flushes: 0, journalFsyncs: 0, fsyncs: 0 };
  private atStart?: StorageView;

  constructor(
    private readonly scenario: ScenarioRun,
    private readonly rootDir: string,
    private readonly segments: SegmentCache,
    private readonly powerLoss: boolean,
  ) {}

  /** The broker's storage counters once it is ready (recovery and its first flush included). */
  async afterStart(runner: BrokerRunner): Promise<void> {
    this.atStart = await runner.get<StorageView>('/mmmq/storage').catch(() => undefined);
  }

  /** Adds what the storage layer did since {@link afterStart}; a broker that does not answer is skipped. */
  async beforeKill(runner: BrokerRunner): Promise<void> {
    const view = await runner.get<StorageView>('/mmmq/storage').catch(() => undefined);
    const start = this.atStart;
    this.atStart = undefined;
    if (!view || !start) return;
    this.storage.commits += view.commits - start.commits;
    this.storage.flushes += view.flushes - start.flushes;
    this.storage.journalFsyncs += view.fsyncs.journal - start.fsyncs.journal;
    this.storage.fsyncs += view.fsyncs.total - start.fsyncs.total;
  }

  /** Decodes the journal the killed broker left; fails the run when it contradicts its format; cuts with `powerLoss`. */
  afterKill(where: string, history: PublishHistory, consumer: RecordingConsumer, random: Random): void {
    const journal = readJournal(this.rootDir);
    this.scenario.expectThat(
      journal.files.length > 0,
      `${where}: the broker left no {rootDir}/journal/*.journal (storage v2 expected): nothing says what was durable`,
    );
    const topics = readDataRoot(this.rootDir, this.segments);
    const floors = durableFloors(journal, topics, commitEvidence(history, consumer), deliveryEvidence(consumer));
    this.counted.problems += floors.problems.length;
    this.scenario.expectZero(
      `${where}: the journal and the files against the format note`,
      { contradictions: floors.problems.length },
      floors.problems,
    );
    this.counted.kills++;
    this.counted.journalFiles += journal.files.length;
    this.counted.unflushedRecords += journal.records.filter((record) => record.seq > journal.flushedSeq).length;
    this.counted.unflushedTopics += journal.firstUnflushedOffset.size;
    if (!this.powerLoss) return;
    addCut(this.total, cutToFloors(floors, random));
    if (floors.lastRecordDurable) this.kept.set(floors.lastRecordDurable, (this.kept.get(floors.lastRecordDurable) ?? 0) + 1);
  }

  report(): void {
    const { total, scenario, counted, storage } = this;
    const figure = scenario.figure.bind(scenario);
    const per = (value: number, count: number) => (count === 0 ? '–' : (value / count).toFixed(1));
    figure(
      'journal at each SIGKILL: files / records above the last FLUSHED / topics with an APPEND above it (mean)',
      `${per(counted.journalFiles, counted.kills)} / ${per(counted.unflushedRecords, counted.kills)} / ${per(counted.unflushedTopics, counted.kills)}`,
    );
    figure('journal or files contradicting the format note', counted.problems, 0);
    figure(
      'under load, from ready to SIGKILL (GET /mmmq/storage): commit groups / flushes / journal fsyncs / all fsyncs',
      `${storage.commits} / ${storage.flushes} / ${storage.journalFsyncs} / ${storage.fsyncs}`,
    );
    if (!this.powerLoss) return;
    figure('files cut / zero-filled / garbage-filled', `${total.filesCut} / ${total.zeroFilled} / ${total.garbageFilled}`);
    figure('segments wholly past the durable point deleted', total.segmentsDeleted);
    figure('new topics whose checkpoints/ the cut deleted too (nothing of theirs flushed)', total.checkpointDirsDeleted);
    figure('bytes past the durable floors dropped', total.bytesDropped);
    const reasons = [...this.kept].map(([reason, count]) => `${count} ${reason}`).join(', ');
    figure('journal’s last record cut / kept (why)', `${total.lastRecordCut} / ${total.lastRecordKept}${reasons ? ` (${reasons})` : ''}`);
  }
}

/** The highest offset per subscription (consumer id, topic) `consumer` got from the broker run just killed. */
function deliveryEvidence(consumer: RecordingConsumer): DeliveryEvidence {
  const highest = new Map<string, number>();
  for (const delivery of consumer.deliveries) {
    if (delivery.epoch !== consumer.epoch) continue;
    const key = `${delivery.consumerId}\n${delivery.topic}`;
    highest.set(key, Math.max(highest.get(key) ?? -1, delivery.offset));
  }
  return (topic, id, fromOffset) => (highest.get(`${id}\n${topic}`) ?? -1) >= fromOffset;
}

/** A message counts as committed once acknowledged to its producer or pushed to the consumer. */
function commitEvidence(history: PublishHistory, consumer: RecordingConsumer): CommitEvidence {
  const pushed = new Set(consumer.deliveries.map((delivery) => `${delivery.topic}\n${delivery.id}`));
  return (topic, id) => {
    if (history.attemptsOf(id).some((attempt) => attempt.outcome === 'acked' && attempt.topic === topic)) return 'acknowledged';
    return pushed.has(`${topic}\n${id}`) ? 'pushed' : undefined;
  };
}

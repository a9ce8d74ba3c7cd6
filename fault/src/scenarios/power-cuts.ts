import type { RecordingConsumer } from '../consumer/recording-consumer';
import { readDataRoot, SegmentCache } from '../format/data-root-reader';
import { readJournal } from '../format/journal-reader';
import { CommitEvidence, durableFloors, LastRecordDurable } from '../faults/durable-floors';
import { addCut, cutToFloors, emptyCut } from '../faults/power-loss';
import type { ScenarioRun } from '../harness/scenario-run';
import type { PublishHistory } from '../history/publish-history';
import type { Random } from '../random';

/**
 * The power cuts of a kill-cycle run: after each SIGKILL, the durable floors are read from the journal and the
 * files (durable-floors.ts), and everything past them is cut (power-loss.ts). Keeps the figures.
 */
export class PowerCuts {
  private readonly total = emptyCut();
  private readonly kept = new Map<LastRecordDurable, number>();
  private cuts = 0;
  private journalFiles = 0;
  private unflushedRecords = 0;
  private unflushedTopics = 0;
  private problems = 0;

  constructor(
    private readonly scenario: ScenarioRun,
    private readonly rootDir: string,
    private readonly segments: SegmentCache,
  ) {}

  /** Cuts the data root of the killed broker; fails the run when the journal contradicts its format. */
  apply(where: string, history: PublishHistory, consumer: RecordingConsumer, random: Random): void {
    const journal = readJournal(this.rootDir);
    this.scenario.expectThat(
      journal.files.length > 0,
      `${where}: the broker left no {rootDir}/journal/*.journal (storage v2 expected): nothing says what was durable`,
    );
    const floors = durableFloors(journal, readDataRoot(this.rootDir, this.segments), commitEvidence(history, consumer));
    this.problems += floors.problems.length;
    this.scenario.expectZero(`${where}: the journal and the files against the format note`, { contradictions: floors.problems.length }, floors.problems);
    addCut(this.total, cutToFloors(floors, random));
    if (floors.lastRecordDurable) this.kept.set(floors.lastRecordDurable, (this.kept.get(floors.lastRecordDurable) ?? 0) + 1);
    this.cuts++;
    this.journalFiles += journal.files.length;
    this.unflushedRecords += journal.records.filter((record) => record.seq > journal.flushedSeq).length;
    this.unflushedTopics += journal.firstUnflushedOffset.size;
  }

  report(): void {
    const { total, scenario } = this;
    const figure = scenario.figure.bind(scenario);
    const perCut = (value: number) => (this.cuts === 0 ? '0' : (value / this.cuts).toFixed(1));
    figure('power cuts', this.cuts);
    figure('journal files / records above the last FLUSHED / topics with an APPEND above it, per cut', `${perCut(this.journalFiles)} / ${perCut(this.unflushedRecords)} / ${perCut(this.unflushedTopics)}`);
    figure('files cut / zero-filled / garbage-filled', `${total.filesCut} / ${total.zeroFilled} / ${total.garbageFilled}`);
    figure('segments wholly past the durable point deleted', total.segmentsDeleted);
    figure('bytes past the durable floors dropped', total.bytesDropped);
    const reasons = [...this.kept].map(([reason, count]) => `${count} ${reason}`).join(', ');
    figure('journal’s last record cut / kept (why)', `${total.lastRecordCut} / ${total.lastRecordKept}${reasons ? ` (${reasons})` : ''}`);
    figure('journal or files contradicting the format note', this.problems, 0);
  }
}

/** A message counts as committed once acknowledged to its producer or pushed to the consumer. */
function commitEvidence(history: PublishHistory, consumer: RecordingConsumer): CommitEvidence {
  const pushed = new Set(consumer.deliveries.map((delivery) => `${delivery.topic}\n${delivery.id}`));
  return (topic, id) => {
    if (history.attemptsOf(id).some((attempt) => attempt.outcome === 'acked' && attempt.topic === topic)) return 'acknowledged';
    return pushed.has(`${topic}\n${id}`) ? 'pushed' : undefined;
  };
}

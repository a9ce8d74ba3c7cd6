import { appendFileSync, mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyDataDirectory } from '../../src/storage';
import { appendOp, encodeRecord, flushedOp, writeJournalFile } from './journal-bytes';
import { segmentPaths, writeSegment } from './segment-files';
import { useTempDir } from './temp-dir';

/** An 8-byte checkpoint file holding `offset`. */
function writeCheckpoint(topicDir: string, consumerId: string, offset: number): void {
  mkdirSync(join(topicDir, 'checkpoints'), { recursive: true });
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(offset));
  writeFileSync(join(topicDir, 'checkpoints', `${consumerId}.checkpoint`), bytes);
}

describe('verifyDataDirectory', () => {
  const dir = useTempDir();
  const topicDir = () => join(dir(), 'topics', 'orders');
  const journalDir = () => join(dir(), 'journal');

  beforeEach(() => {
    mkdirSync(topicDir(), { recursive: true });
    mkdirSync(journalDir());
  });

  it('finds nothing wrong with intact segments, a flushed journal and checkpoints within the log', async () => {
    writeSegment(topicDir(), ['a', 'b'], 0);
    writeSegment(topicDir(), ['c'], 2);
    writeCheckpoint(topicDir(), 'billing', 3);
    writeJournalFile(journalDir(), 1, [encodeRecord({ seq: 1, ops: [flushedOp(0)] })]);

    const report = await verifyDataDirectory(dir());

    expect(report).toMatchObject({ ok: true, problems: [], notes: [], topics: 1, filesChecked: 6 });
  });

  it("reports a torn index tail and an emptied index of a closed segment as problems, in recovery's words", async () => {
    writeSegment(topicDir(), ['a', 'b'], 0);
    writeSegment(topicDir(), ['c', 'd'], 2);
    truncateSync(segmentPaths(topicDir(), 2).index, 13);
    truncateSync(segmentPaths(topicDir(), 0).index, 0);

    const report = await verifyDataDirectory(dir());

    expect(report.problems.map((problem) => problem.description)).toEqual([
      'segment 0: rebuilt 2 index entries from the data',
      'segment 2: cut a torn index tail of 5 bytes (1 entries kept)',
    ]);
  });

  it('reports a checkpoint past the log end, counting what the journal still holds as part of the log', async () => {
    writeSegment(topicDir(), ['a'], 0);
    writeCheckpoint(topicDir(), 'within', 3);
    writeCheckpoint(topicDir(), 'past', 4);
    writeJournalFile(journalDir(), 1, [encodeRecord({ seq: 1, ops: [appendOp('orders', 1, ['b', 'c'])] })]);

    const report = await verifyDataDirectory(dir());

    expect(report.problems).toEqual([
      {
        file: join('topics', 'orders', 'checkpoints', 'past.checkpoint'),
        description: 'holds offset 4, past the log end 3; recovery resets it to 0 (redelivery is safe, skipping is not)',
      },
    ]);
    expect(report.notes).toEqual([
      { file: 'journal', description: '1 records are not in the topic files yet (no clean shutdown); recovery replays them' },
    ]);
  });

  it('notes, without failing, what a crash leaves: a torn journal tail, unindexed data, a foreign directory', async () => {
    writeSegment(topicDir(), ['a'], 0);
    appendFileSync(segmentPaths(topicDir(), 0).data, Buffer.alloc(5));
    mkdirSync(join(dir(), 'topics', 'not a topic'));
    const record = encodeRecord({ seq: 1, ops: [flushedOp(0)] });
    writeJournalFile(journalDir(), 1, [record, record.subarray(0, 10)]);

    const report = await verifyDataDirectory(dir());

    expect(report.ok).toBe(true);
    expect(report.notes.map((note) => [note.file, note.description])).toEqual([
      [join('topics', 'not a topic'), 'not a valid topic name: the broker skips it'],
      [
        expect.stringMatching(/^journal\/\d+\.journal$/),
        expect.stringMatching(/^10 bytes after the last record \(at \d+\) hold no record/),
      ],
      [
        join('topics', 'orders', '0000000000000000000.mmm'),
        'segment 0: removed 5 bytes of unacknowledged data past the last indexed entry',
      ],
    ]);
  });
});

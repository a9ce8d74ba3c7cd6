import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JOURNAL_HEADER_BYTES, journalFileName } from '../../src/storage/journal/journal-file';
import { AppendOp, JournalRecord } from '../../src/storage/journal/journal-record';
import { scanJournal } from '../../src/storage/journal/journal-scanner';
import { appendOp, encodeRecord, flushedOp, TEST_SALT, writeJournalFile } from './journal-bytes';
import { flipByte } from './segment-files';
import { useTempDir } from './temp-dir';

/** Record `seq`: a few entries for topic `t{seq % 3}`, and a FLUSHED op every third record. */
const record = (seq: number): JournalRecord => ({
  seq,
  ops: [appendOp(`t${seq % 3}`, seq * 10, [`m${seq}a`, `m${seq}b`]), ...(seq % 3 === 0 ? [flushedOp(seq - 1)] : [])],
});
const records = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => record(from + i));
const seqs = (scanned: JournalRecord[]) => scanned.map((scanned) => scanned.seq);
/** Where record i (0-based) of `frames` starts in a file that holds them after the header. */
const startOf = (frames: Buffer[], i: number) => JOURNAL_HEADER_BYTES + frames.slice(0, i).reduce((sum, frame) => sum + frame.length, 0);

describe('scanJournal', () => {
  const dir = useTempDir();

  it('returns every intact record of every file in sequence order, byte for byte', async () => {
    writeJournalFile(
      dir(),
      4,
      records(4, 6).map((r) => encodeRecord(r)),
    );
    writeJournalFile(
      dir(),
      1,
      records(1, 3).map((r) => encodeRecord(r)),
    );
    writeFileSync(join(dir(), 'notes.txt'), 'not a journal file');
    const scan = await scanJournal(dir());
    expect(scan.files.map((file) => file.firstSeq)).toEqual([1, 4]);
    expect(scan.records).toEqual(records(1, 6));
    expect(scan.damage).toEqual([]);
    expect(scan.tornTail).toBeUndefined();
  });

  it.each([
    ['a record cut after its length field', 5],
    ['a record cut in the middle', 0.5],
    ['a record missing its last byte', -1],
  ])('cuts a torn tail (%s) and reports it as tornTail, not as damage', async (_, cut) => {
    const frames = records(1, 4).map((r) => encodeRecord(r));
    const last = frames[3];
    const kept = cut < 0 ? last.length + cut : cut < 1 ? Math.floor(last.length * cut) : cut;
    const path = writeJournalFile(dir(), 1, [...frames.slice(0, 3), last.subarray(0, kept)]);
    const scan = await scanJournal(dir());
    expect(seqs(scan.records)).toEqual([1, 2, 3]);
    expect(scan.tornTail).toEqual({ path, at: startOf(frames, 3), bytes: kept });
    expect(scan.damage).toEqual([]);
  });

  it('takes garbage after the last record (a never-written or recycled tail) for a torn tail', async () => {
    const frames = records(1, 2).map((r) => encodeRecord(r));
    const garbage = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 131 + 7) & 0xff));
    const path = writeJournalFile(dir(), 1, [...frames, garbage]);
    const scan = await scanJournal(dir());
    expect(seqs(scan.records)).toEqual([1, 2]);
    expect(scan.tornTail).toEqual({ path, at: startOf(frames, 2), bytes: 300 });
    expect(scan.unusedTails).toEqual([]);
  });

  it('takes zeros after the last record of any file for its preallocated rest, neither torn nor damaged', async () => {
    const first = records(1, 2).map((r) => encodeRecord(r));
    const firstPath = writeJournalFile(dir(), 1, [...first, Buffer.alloc(70_000)]);
    const second = records(3, 4).map((r) => encodeRecord(r));
    const secondPath = writeJournalFile(dir(), 3, [...second, Buffer.alloc(300)]);
    const scan = await scanJournal(dir());
    expect(seqs(scan.records)).toEqual([1, 2, 3, 4]);
    expect(scan.unusedTails).toEqual([
      { path: firstPath, at: startOf(first, 2) },
      { path: secondPath, at: startOf(second, 2) },
    ]);
    expect(scan.tornTail).toBeUndefined();
    expect(scan.damage).toEqual([]);
  });

  it('takes a torn record followed by zeros for a torn tail', async () => {
    const frames = records(1, 3).map((r) => encodeRecord(r));
    const torn = Buffer.concat([frames[2].subarray(0, 20), Buffer.alloc(500)]);
    const path = writeJournalFile(dir(), 1, [...frames.slice(0, 2), torn]);
    const scan = await scanJournal(dir());
    expect(seqs(scan.records)).toEqual([1, 2]);
    expect(scan.tornTail).toEqual({ path, at: startOf(frames, 2), bytes: 520 });
  });

  it.each([
    ['its payload', 30],
    ['its checksum', 5],
    ['its length field', 1],
  ])('reports a record whose check fails in the middle (a byte of %s flipped) and still returns the records after it', async (_, at) => {
    const frames = records(1, 5).map((r) => encodeRecord(r));
    const path = writeJournalFile(dir(), 1, frames);
    flipByte(path, startOf(frames, 2) + at);
    const scan = await scanJournal(dir());
    expect(seqs(scan.records)).toEqual([1, 2, 4, 5]);
    expect(scan.records[2]).toEqual(record(4));
    expect(scan.damage).toHaveLength(1);
    expect(scan.damage[0]).toContain('records 3..3 are lost');
    expect(scan.tornTail).toBeUndefined();
  });

  it('reports damage at the end of a file that is not the last one, and goes on with the next file', async () => {
    const frames = records(1, 3).map((r) => encodeRecord(r));
    const first = writeJournalFile(dir(), 1, frames);
    truncateSync(first, startOf(frames, 2) + 10);
    writeJournalFile(
      dir(),
      3,
      records(3, 4).map((r) => encodeRecord(r)),
    );
    const scan = await scanJournal(dir());
    expect(seqs(scan.records)).toEqual([1, 2, 3, 4]);
    expect(scan.damage).toEqual([expect.stringContaining(first)]);
    expect(scan.tornTail).toBeUndefined();
  });

  describe('a record forged inside a message (a producer cannot know the salt of the file)', () => {
    /** Record 2 carries, as a message's content, a complete frame of a record 3 that does not exist. */
    const forgedRecord: JournalRecord = { seq: 3, ops: [appendOp('t0', 0, ['forged'])] };
    const carrying = (forged: Buffer): JournalRecord => ({ seq: 2, ops: [appendOp('t2', 20, [Buffer.concat([forged, forged])])] });
    const otherSalt = Buffer.from('0000000000000000', 'hex');

    it('is never taken for a record when the record carrying it is torn', async () => {
      const frames = [encodeRecord(record(1)), encodeRecord(carrying(encodeRecord(forgedRecord, otherSalt)))];
      const path = writeJournalFile(dir(), 1, [frames[0], frames[1].subarray(0, frames[1].length - 3)]);
      const scan = await scanJournal(dir());
      expect(seqs(scan.records)).toEqual([1]);
      expect(scan.tornTail).toEqual({ path, at: startOf(frames, 1), bytes: frames[1].length - 3 });
      expect(scan.damage).toEqual([]);
    });

    it('is never taken for a record when the record carrying it is damaged, and the real records after it are', async () => {
      const frames = [encodeRecord(record(1)), encodeRecord(carrying(encodeRecord(forgedRecord, otherSalt))), encodeRecord(record(3))];
      const path = writeJournalFile(dir(), 1, frames);
      flipByte(path, startOf(frames, 1) + 20);
      const scan = await scanJournal(dir());
      expect(scan.records).toEqual([record(1), record(3)]);
      expect(scan.damage).toHaveLength(1);
    });

    it('(control) would be taken if it carried the salt of the file: the salt is what rules it out', async () => {
      const frames = [encodeRecord(record(1)), encodeRecord(carrying(encodeRecord(forgedRecord, TEST_SALT)))];
      writeJournalFile(dir(), 1, [frames[0], frames[1].subarray(0, frames[1].length - 3)]);
      const scan = await scanJournal(dir());
      expect(scan.records.map((scanned) => (scanned.ops[0] as AppendOp).frames.toString().includes('forged'))).toEqual([false, true]);
    });
  });

  it('passes over an empty or header-only last file (a rotation that crashed) without reporting damage', async () => {
    writeJournalFile(
      dir(),
      1,
      records(1, 2).map((r) => encodeRecord(r)),
    );
    writeFileSync(join(dir(), journalFileName(3)), Buffer.alloc(0));
    const empty = await scanJournal(dir());
    expect(seqs(empty.records)).toEqual([1, 2]);
    expect([empty.damage, empty.tornTail]).toEqual([[], undefined]);
    writeJournalFile(dir(), 3, []);
    const scan = await scanJournal(dir());
    expect(seqs(scan.records)).toEqual([1, 2]);
    expect(scan.damage).toEqual([]);
    expect(scan.tornTail).toBeUndefined();
  });

  it('reports a file without a journal header that is not the last one, and reads the others', async () => {
    writeFileSync(join(dir(), journalFileName(1)), Buffer.from('not a journal at all, just bytes'));
    writeJournalFile(
      dir(),
      3,
      records(3, 4).map((r) => encodeRecord(r)),
    );
    const scan = await scanJournal(dir());
    expect(seqs(scan.records)).toEqual([3, 4]);
    expect(scan.damage).toEqual([expect.stringContaining('no journal header')]);
  });

  it('finds nothing in a missing journal directory', async () => {
    expect(await scanJournal(join(dir(), 'absent'))).toEqual({ files: [], records: [], damage: [], unusedTails: [], spare: undefined });
  });
});

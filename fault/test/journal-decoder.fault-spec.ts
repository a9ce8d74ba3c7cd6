import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { durableFloors } from '../src/faults/durable-floors';
import { cutToFloors } from '../src/faults/power-loss';
import { crc32c } from '../src/format/crc32c';
import { decodeCheckpoint, encodeCheckpointV2 } from '../src/format/checkpoint-format';
import { readDataRoot } from '../src/format/data-root-reader';
import { encodeJournalHeader, encodeRecord, JOURNAL_DIR, journalFileName, JournalOp } from '../src/format/journal-format';
import { readJournal } from '../src/format/journal-reader';
import { encodeFrame } from '../src/format/segment-format';
import { buildTopic } from '../src/fuzz/segment-builder';
import { Random } from '../src/random';

/**
 * The checker's journal decoder and power-loss floors, on journals written by hand from the format note
 * (docs/storage.md): no broker involved.
 */
const SALT = Buffer.from('0123456789abcdef', 'hex');
let rootDir: string;

beforeEach(() => {
  rootDir = mkdtempSync(join(tmpdir(), 'mmmq-journal-decoder-'));
  mkdirSync(join(rootDir, JOURNAL_DIR));
});
afterEach(() => rmSync(rootDir, { recursive: true, force: true }));

function writeJournal(firstSeq: number, records: JournalOp[][], salt = SALT): string {
  const path = join(rootDir, JOURNAL_DIR, journalFileName(firstSeq));
  writeFileSync(path, Buffer.concat([encodeJournalHeader(salt), ...records.map((ops, i) => encodeRecord(salt, firstSeq + i, ops))]));
  return path;
}

const frame = (text: string) => encodeFrame(Buffer.from(text));
const append = (topic: string, firstOffset: number, count = 1): JournalOp => ({
  kind: 'append',
  topic,
  firstOffset,
  frames: Array.from({ length: count }, (_, i) => frame(`{"id":"${topic}-${firstOffset + i}"}`)),
});

describe('journal decoder', () => {
  it('computes the salted CRC as CRC32C over salt ‖ payload, like @node-rs/crc32 chaining', () => {
    const native = createRequire(resolve(__dirname, '../../packages/broker/package.json'))('@node-rs/crc32') as {
      crc32c(input: Buffer, initial?: number): number;
    };
    const payload = Buffer.from('payload bytes of a record');
    expect(crc32c(payload, crc32c(SALT))).toBe(crc32c(Buffer.concat([SALT, payload])));
    expect(crc32c(payload, crc32c(SALT))).toBe(native.crc32c(payload, native.crc32c(SALT)));
  });

  it('reads a record laid out byte by byte as the format note says', () => {
    const payload = Buffer.from('0000000000000007' + '00000001' + '04' + '0000000000000005', 'hex');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32c(Buffer.concat([SALT, payload])));
    const length = Buffer.alloc(4);
    length.writeUInt32BE(4 + payload.length);
    const path = join(rootDir, JOURNAL_DIR, journalFileName(7));
    writeFileSync(path, Buffer.concat([Buffer.from('MMMQJNL1'), SALT, length, crc, payload]));
    const journal = readJournal(rootDir);
    expect(journal.records).toEqual([{ path, start: 16, end: 16 + 8 + payload.length, seq: 7, ops: [{ kind: 'flushed', seq: 5 }] }]);
    expect(journal.flushedSeq).toBe(5);
    expect(journal.problems).toEqual([]);
  });

  it('decodes every op kind, P, f_T and the last record', () => {
    writeJournal(1, [
      [append('a', 0, 3)],
      [append('b', 0), { kind: 'checkpoint', topic: 'a', consumerId: 'c-ü', nextOffset: 2 }],
      [
        { kind: 'flushed', seq: 2 },
        { kind: 'checkpoint-delete', topic: 'a', consumerId: 'c-ü' },
      ],
      [append('a', 3, 2)],
      [append('b', 1), append('a', 5)],
    ]);
    const journal = readJournal(rootDir);
    expect(journal.records.map((record) => record.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(journal.records[1].ops[1]).toEqual({ kind: 'checkpoint', topic: 'a', consumerId: 'c-ü', nextOffset: 2 });
    expect(journal.records[2].ops[1]).toEqual({ kind: 'checkpoint-delete', topic: 'a', consumerId: 'c-ü' });
    expect(journal.flushedSeq).toBe(2);
    expect([...journal.firstUnflushedOffset]).toEqual([
      ['a', 3],
      ['b', 1],
    ]);
    expect(journal.lastRecord?.seq).toBe(5);
    expect(journal.lastRecord?.end).toBe(statSync(journal.lastRecord!.path).size);
  });

  it('rejects records whose CRC was not computed over this file’s salt', () => {
    const path = writeJournal(1, [[append('a', 0)]]);
    appendFileSync(path, encodeRecord(Buffer.alloc(8, 7), 2, [append('a', 1)]));
    const journal = readJournal(rootDir);
    expect(journal.records.map((record) => record.seq)).toEqual([1]);
    expect(journal.files[0].damage).toEqual([expect.objectContaining({ reason: 'bad-checksum', resumesAt: undefined })]);
  });

  it('treats a cut last record as a torn tail and skips mid-journal damage to the next intact record', () => {
    const path = writeJournal(1, [[append('a', 0)], [append('a', 1)], [append('a', 2)], [append('a', 3)]]);
    const whole = readJournal(rootDir).records;
    const bytes = readFileSync(path);
    bytes[whole[1].start + 20] ^= 0x10;
    writeFileSync(path, bytes.subarray(0, whole[3].end - 3));
    const journal = readJournal(rootDir);
    expect(journal.records.map((record) => record.seq)).toEqual([1, 3]);
    expect(journal.files[0].damage).toEqual([
      { path, at: whole[1].start, resumesAt: whole[2].start, reason: 'bad-checksum' },
      { path, at: whole[3].start, resumesAt: undefined, reason: 'bad-length' },
    ]);
    expect(journal.problems).toEqual([`${path}@${whole[2].start}: seq 3 follows seq 1`]);
  });

  it('reads files in sequence order and reports names that do not match their first record', () => {
    writeJournal(1, [[append('a', 0)], [append('a', 1)]]);
    const second = writeJournal(3, [[append('a', 2)]], Buffer.alloc(8, 1));
    writeFileSync(join(rootDir, JOURNAL_DIR, journalFileName(9)), Buffer.concat([encodeJournalHeader(SALT), encodeRecord(SALT, 4, [])]));
    const journal = readJournal(rootDir);
    expect(journal.records.map((record) => record.seq)).toEqual([1, 2, 3, 4]);
    expect(journal.lastRecord?.path).not.toBe(second);
    expect(journal.problems).toEqual([expect.stringContaining('named after seq 9, its first record has seq 4')]);
  });
});

describe('durable floors and the power-loss cut', () => {
  /** Topic t: segments of 3, 3 and 2 entries (offsets 0..7); topic u: one segment of 2. */
  function buildRoot(): void {
    buildTopic(rootDir, 't', [
      [10, 20, 30],
      [40, 50, 60],
      [70, 80],
    ]);
    buildTopic(rootDir, 'u', [[10, 20]]);
  }
  const payloadsOf = (topic: string) =>
    [...readDataRoot(rootDir).get(topic)!.entries.values()].map((entry) => ('payload' in entry ? entry.payload : Buffer.alloc(0)));
  const appendStored = (topic: string, firstOffset: number, count: number): JournalOp => ({
    kind: 'append',
    topic,
    firstOffset,
    frames: payloadsOf(topic)
      .slice(firstOffset, firstOffset + count)
      .map(encodeFrame),
  });
  const nothingCommitted = () => undefined;

  it('keeps a topic with no APPEND above P whole, and cuts a topic back to entry f_T', () => {
    buildRoot();
    writeJournal(1, [[appendStored('u', 0, 2)], [{ kind: 'flushed', seq: 1 }], [appendStored('t', 4, 2)], [appendStored('t', 6, 2)]]);
    const floors = durableFloors(readJournal(rootDir), readDataRoot(rootDir), nothingCommitted);
    const t = readDataRoot(rootDir).get('t')!;
    const byPath = new Map(floors.files.map((file) => [file.path, file]));
    expect(floors.files.some((file) => file.path.includes('/u/'))).toBe(false);
    expect(byPath.has(t.segments[0].dataPath)).toBe(false);
    expect(byPath.get(t.segments[1].indexPath)).toMatchObject({ floor: 8, deletable: false });
    expect(byPath.get(t.segments[1].dataPath)).toMatchObject({ floor: t.segments[1].addresses[1], deletable: false });
    expect(byPath.get(t.segments[2].dataPath)).toMatchObject({ floor: 0, deletable: true });
    // Every entry of the last record is in the topic files: it was applied, hence fsync'd.
    expect(floors.lastRecordDurable).toBe('applied');
    expect(floors.problems).toEqual([]);
  });

  it('lets the last record go unless it was acknowledged, pushed, applied or followed by a file', () => {
    buildRoot();
    const unapplied: JournalOp = { kind: 'append', topic: 'u', firstOffset: 2, frames: [frame('{"id":"u-2","topic":"u"}')] };
    const path = writeJournal(1, [[{ kind: 'flushed', seq: 0 }], [unapplied]]);
    const journal = readJournal(rootDir);
    const topics = readDataRoot(rootDir);
    const journalFloor = (evidence: Parameters<typeof durableFloors>[2]) =>
      durableFloors(journal, topics, evidence).files.find((file) => file.kind === 'journal');
    expect(journalFloor(nothingCommitted)).toMatchObject({ path, floor: journal.lastRecord!.start });
    expect(journalFloor((topic, id) => (topic === 'u' && id === 'u-2' ? 'acknowledged' : undefined))).toMatchObject({
      floor: journal.lastRecord!.end,
    });
    writeJournal(3, []);
    expect(durableFloors(readJournal(rootDir), topics, nothingCommitted).lastRecordDurable).toBe('later-file');
  });

  it('cuts every file to at or after its floor and leaves the bytes below it alone', () => {
    for (let seed = 0; seed < 30; seed++) {
      rmSync(join(rootDir, 'topics'), { recursive: true, force: true });
      rmSync(join(rootDir, JOURNAL_DIR, journalFileName(1)), { force: true });
      buildRoot();
      writeJournal(1, [[{ kind: 'flushed', seq: 0 }], [appendStored('t', 2, 3)], [appendStored('t', 5, 3), appendStored('u', 1, 1)]]);
      const floors = durableFloors(readJournal(rootDir), readDataRoot(rootDir), nothingCommitted);
      const before = new Map(floors.files.map((file) => [file.path, readFileSync(file.path)]));
      cutToFloors(floors, new Random(seed));
      for (const file of floors.files) {
        let after: Buffer;
        try {
          after = readFileSync(file.path);
        } catch {
          expect(file.deletable).toBe(true);
          continue;
        }
        expect(after.length).toBeGreaterThanOrEqual(file.floor);
        expect(after.length).toBeLessThanOrEqual(file.size);
        expect(after.subarray(0, file.floor).equals(before.get(file.path)!.subarray(0, file.floor))).toBe(true);
      }
    }
  });
});

describe('subscription states: CHECKPOINT_STATE ops and v2 checkpoint files', () => {
  const state = {
    cursor: 5,
    deliveredMark: 120,
    settled: [
      [7, 9],
      [11, 12],
    ] as Array<[number, number]>,
    counts: [{ offset: 5, deliveries: 2, nacks: 1 }],
  };

  it('reads a v2 snapshot laid out byte by byte as the format says, and an 8-byte v1 cursor', () => {
    const body = Buffer.from(
      Buffer.from('MMMQSUB2').toString('hex') +
        '0000000000000005' +
        '0000000000000078' +
        '00000002' +
        '00000001' +
        '00000002' +
        '00000002' +
        '00000006' +
        '00000001' +
        '00000000' +
        '00000002' +
        '00000001',
      'hex',
    );
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32c(body));
    expect(encodeCheckpointV2(state)).toEqual(Buffer.concat([body, crc]));
    expect(decodeCheckpoint(Buffer.concat([body, crc]))).toEqual({ form: 'v2', ...state });
    expect(decodeCheckpoint(Buffer.concat([body, crc, Buffer.from('leftover')]))).toEqual({ form: 'v2', ...state });
    expect(decodeCheckpoint(Buffer.from('0000000000000011', 'hex'))).toEqual({
      form: 'v1',
      cursor: 17,
      deliveredMark: 17,
      settled: [],
      counts: [],
    });
  });

  it('finds every flipped bit, every cut and ranges out of order in a v2 snapshot', () => {
    const bytes = encodeCheckpointV2(state);
    for (let bit = 0; bit < bytes.length * 8; bit++) {
      const flipped = Buffer.from(bytes);
      flipped[bit >> 3] ^= 1 << (bit & 7);
      expect(typeof decodeCheckpoint(flipped)).toBe('string');
    }
    for (let length = 9; length < bytes.length; length++) expect(typeof decodeCheckpoint(bytes.subarray(0, length))).toBe('string');
    expect(
      decodeCheckpoint(
        encodeCheckpointV2({
          ...state,
          settled: [
            [9, 10],
            [7, 8],
          ],
        }),
      ),
    ).toMatch(/out of order/);
  });

  it('decodes kind 5 ops and reports one whose state is not a v2 snapshot', () => {
    const op: JournalOp = { kind: 'checkpoint-state', topic: 'a', consumerId: 'c-ü', state: encodeCheckpointV2(state) };
    writeJournal(1, [[append('a', 0, 12), op], [{ ...op, state: Buffer.from('not a snapshot') }]]);
    const journal = readJournal(rootDir);
    expect(journal.records[0].ops[1]).toEqual(op);
    expect(journal.problems).toEqual([expect.stringContaining('seq 2: the CHECKPOINT_STATE of a → c-ü holds 14 bytes')]);
  });

  it('keeps a last record of states once a push went past the mark before it, or its state is in the checkpoint file', () => {
    buildTopic(rootDir, 'a', [[10, 20, 30]]);
    const before = encodeCheckpointV2({ cursor: 0, deliveredMark: 100, settled: [], counts: [] });
    const after = encodeCheckpointV2({ cursor: 3, deliveredMark: 200, settled: [], counts: [] });
    const stateOp = (bytes: Buffer): JournalOp => ({ kind: 'checkpoint-state', topic: 'a', consumerId: 'c', state: bytes });
    writeJournal(1, [[{ kind: 'flushed', seq: 0 }], [stateOp(before)], [stateOp(after)]]);
    const journal = readJournal(rootDir);
    const pushedFrom = (offset: number) => (topic: string, consumerId: string, from: number) =>
      topic === 'a' && consumerId === 'c' && offset >= from;
    const durable = (pushed: number) =>
      durableFloors(journal, readDataRoot(rootDir), () => undefined, pushedFrom(pushed)).lastRecordDurable;
    expect(durable(99)).toBeUndefined();
    expect(durable(100)).toBe('pushed');
    mkdirSync(join(rootDir, 'topics', 'a', 'checkpoints'), { recursive: true });
    writeFileSync(join(rootDir, 'topics', 'a', 'checkpoints', 'c.checkpoint'), before);
    expect(durable(99)).toBeUndefined();
    writeFileSync(join(rootDir, 'topics', 'a', 'checkpoints', 'c.checkpoint'), after);
    expect(durable(99)).toBe('applied');
  });
});

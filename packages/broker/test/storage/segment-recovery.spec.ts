import { appendFileSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { FileHandle } from '../../src/storage/file-handle';
import { SegmentFile } from '../../src/storage/segment-file';
import { SegmentFileChain } from '../../src/storage/segment-file-chain';
import { bytes, useTempDir } from './temp-dir';
import {
  flipBit,
  flipByte,
  flipIndexBit,
  readBack,
  readIndex,
  segmentPaths,
  writeIndexEntry,
  writeSegment,
  appendEntries,
} from './segment-files';

const ENTRIES = ['{"n":0}', '{"n":1}', '{"n":2}'];
/** Each entry above is an 8-byte header + 7 payload bytes. */
const FRAME = 15;

describe('segment recovery', () => {
  const dir = useTempDir();
  const paths = () => segmentPaths(dir());

  it('leaves an intact segment untouched', async () => {
    writeSegment(dir(), ENTRIES);
    expect(await readBack(dir())).toEqual({ entries: ENTRIES, repairs: [] });
  });

  it('cuts a partial data tail (data written, index not: never acknowledged)', async () => {
    writeSegment(dir(), ENTRIES);
    appendFileSync(paths().data, Buffer.from([0, 0, 0, 40, 1, 2, 3]));
    const { entries, repairs } = await readBack(dir());
    expect(entries).toEqual(ENTRIES);
    expect(repairs).toEqual(['removed 7 bytes of unacknowledged data past the last indexed entry']);
    expect(statSync(paths().data).size).toBe(3 * FRAME);
  });

  it('cuts a zero-filled data tail; zeros never read as an entry', async () => {
    writeSegment(dir(), ENTRIES);
    appendFileSync(paths().data, Buffer.alloc(4096));
    expect((await readBack(dir())).entries).toEqual(ENTRIES);
    expect(statSync(paths().data).size).toBe(3 * FRAME);
  });

  it('cuts a complete but unindexed entry and continues offsets after the last indexed one', async () => {
    writeSegment(dir(), ENTRIES);
    truncateSync(paths().index, 16);
    const { segment, repairs } = await SegmentFile.open(dir(), 0);
    expect(repairs[0]).toMatch(/removed 15 bytes/);
    expect(segment.endOffset).toBe(2);
    await appendEntries(segment, [bytes('{"n":"new"}')]);
    expect((await segment.read(2)).toString()).toBe('{"n":"new"}');
    await segment.close();
  });

  it('truncates the data of a segment whose index is empty (crash before the first commit)', async () => {
    writeSegment(dir(), ENTRIES);
    writeFileSync(paths().index, Buffer.alloc(0));
    expect((await readBack(dir())).entries).toEqual([]);
    expect(statSync(paths().data).size).toBe(0);
  });

  it('cuts a torn index tail to a whole number of entries', async () => {
    writeSegment(dir(), ENTRIES);
    appendFileSync(paths().index, Buffer.from([0, 0, 1]));
    const { entries, repairs } = await readBack(dir());
    expect(entries).toEqual(ENTRIES);
    expect(repairs[0]).toBe('cut a torn index tail of 3 bytes (3 entries kept)');
    expect(statSync(paths().index).size).toBe(24);
  });

  it('isolates a flipped byte in the middle entry; the entries after it stay readable', async () => {
    writeSegment(dir(), ENTRIES);
    flipByte(paths().data, FRAME + 10);
    expect(await readBack(dir())).toEqual({
      entries: [ENTRIES[0], 'ChecksumMismatchError', ENTRIES[2]],
      repairs: ['entry 1 fails its checksum; it keeps its offset and is skipped at delivery'],
    });
  });

  it('isolates a middle entry whose length field is damaged without shifting later offsets', async () => {
    writeSegment(dir(), ENTRIES);
    flipByte(paths().data, FRAME + 2);
    expect((await readBack(dir())).entries).toEqual([ENTRIES[0], 'CorruptionError', ENTRIES[2]]);
  });

  it('keeps a corrupt last entry at its offset (isolated) instead of failing the boot', async () => {
    writeSegment(dir(), ENTRIES);
    flipByte(paths().data, 2 * FRAME + 12);
    const { entries, repairs } = await readBack(dir());
    expect(entries).toEqual([ENTRIES[0], ENTRIES[1], 'ChecksumMismatchError']);
    expect(repairs).toEqual(['entry 2 fails its checksum; it keeps its offset and is skipped at delivery']);
  });

  it('keeps the offset of a last entry whose data was cut off, and appends after it', async () => {
    writeSegment(dir(), ENTRIES);
    truncateSync(paths().data, 2 * FRAME + 2);
    const { segment, repairs } = await SegmentFile.open(dir(), 0);
    expect(repairs).toEqual(['entry 2 is damaged; it keeps its offset and is skipped at delivery']);
    await appendEntries(segment, [bytes('{"n":3}')]);
    await expect(segment.read(2)).rejects.toThrow(/offset 2/);
    expect((await segment.read(3)).toString()).toBe('{"n":3}');
    await segment.close();
  });

  it('rebuilds a missing index from the data', async () => {
    writeSegment(dir(), ENTRIES);
    rmSync(paths().index);
    const { entries, repairs } = await readBack(dir());
    expect(entries).toEqual(ENTRIES);
    expect(repairs).toEqual(['the index file was missing', 'rebuilt 3 index entries from the data']);
    expect(statSync(paths().index).size).toBe(24);
  });

  it('rebuilds a missing index across a corrupt middle entry and stops at a torn tail', async () => {
    writeSegment(dir(), ENTRIES);
    rmSync(paths().index);
    flipByte(paths().data, FRAME + 10);
    appendFileSync(paths().data, Buffer.from([0, 0, 0, 99, 1]));
    const { entries, repairs } = await readBack(dir());
    expect(entries).toEqual([ENTRIES[0], 'ChecksumMismatchError', ENTRIES[2]]);
    expect(repairs).toContain('rebuilt 3 index entries from the data');
    expect(repairs).toContain('entry 1 fails its checksum; it keeps its offset and is skipped at delivery');
    expect(repairs).toContain('removed 5 bytes of data that hold no complete entry');
  });

  // Found by the fault suite's recovery fuzz: [[[1,1]],[flip-data segment 0 at 0 bit 0, delete-index segment 0]].
  it('keeps the intact entry after a first frame whose length field is damaged when the index is missing', async () => {
    writeSegment(dir(), ENTRIES.slice(0, 2));
    flipBit(paths().data, 0);
    rmSync(paths().index);

    const { entries, repairs } = await readBack(dir());

    expect(entries).toEqual(['CorruptionError', ENTRIES[1]]);
    expect(repairs).toEqual([
      'the index file was missing',
      'rebuilt 2 index entries from the data',
      'entry 0 is damaged; it keeps its offset and is skipped at delivery',
      'found the next intact entry 15 bytes after damaged data at byte 0; the damaged bytes keep one offset (entry 0)',
    ]);
    expect(statSync(paths().data).size).toBe(2 * FRAME);
    expect(readIndex(paths().index)).toEqual([0, FRAME]);
  });

  it('corrects garbage index entries from the data', async () => {
    writeSegment(dir(), ENTRIES);
    const index = readFileSync(paths().index);
    index.fill(0xab, 8);
    writeFileSync(paths().index, index);
    const { entries, repairs } = await readBack(dir());
    expect(entries).toEqual(ENTRIES);
    expect(repairs).toEqual([
      expect.stringMatching(
        /^corrected 2 index entries from the data \(entry 1: it gave \d+, the frame is at 15; entry 2: it gave \d+, the frame is at 30\)$/,
      ),
    ]);
  });

  it('rebuilds an index that is garbage from its first entry', async () => {
    writeSegment(dir(), ENTRIES);
    writeFileSync(paths().index, Buffer.alloc(24, 0x7f));
    expect((await readBack(dir())).entries).toEqual(ENTRIES);
  });

  it('drops index entries that point past the end of the data', async () => {
    writeSegment(dir(), ENTRIES);
    truncateSync(paths().data, FRAME);
    const { entries } = await readBack(dir());
    expect(entries).toEqual([ENTRIES[0]]);
  });
});

/** `count` payloads of exactly `length` bytes each, so every frame is `length + 8` bytes. */
function sameSizePayloads(count: number, length: number): string[] {
  return Array.from({ length: count }, (_, n) => {
    const prefix = `{"n":${String(n).padStart(2, '0')},"pad":"`;
    return `${prefix}${'x'.repeat(length - prefix.length - 2)}"}`;
  });
}

/** Payloads of different sizes, so a wrong address rarely lands on a frame boundary by chance. */
const VARIED = ['{"n":0}', '{"n":1,"x":"abcdefghij"}', '"2"', '{"n":3,"list":[1,2,3,4,5,6,7,8]}', '{"n":4}'];
const ERROR_NAMES = ['ChecksumMismatchError', 'CorruptionError'];

// Recovery used to trust any index entry that was increasing and inside the data file, so
// one flipped bit cut intact, acknowledged entries, and a torn last entry cut an acknowledged one.
describe('segment recovery checks every index entry against the data', () => {
  const dir = useTempDir();
  const paths = () => segmentPaths(dir());
  /** Writes `payloads` as segment 0, closed by an empty segment after it when `closed` is set. */
  const writeSegments = (payloads: string[], closed: boolean): number | undefined => {
    writeSegment(dir(), payloads);
    if (!closed) return undefined;
    writeSegment(dir(), [], payloads.length);
    return payloads.length;
  };

  describe.each([
    ['a closed segment', true],
    ['the tail segment', false],
  ])('in %s', (_, closed) => {
    it('loses nothing when bit 11 of index entry 3 flips (1359 → 3407)', async () => {
      // 37 entries of 453 bytes: entry 3 starts at 3 × 453 = 1359, and 1359 with bit 11 set is 3407.
      const payloads = sameSizePayloads(37, 445);
      const next = writeSegments(payloads, closed);
      const addresses = readIndex(paths().index);
      expect(addresses[3]).toBe(1359);
      flipIndexBit(paths().index, 3, 11);
      expect(readIndex(paths().index)[3]).toBe(3407);

      const { entries, repairs } = await readBack(dir(), 0, next);

      expect(entries).toEqual(payloads);
      expect(repairs).toEqual(['corrected index entry 3 from the data (it gave 3407, the frame is at 1359)']);
      expect(readIndex(paths().index)).toEqual(addresses);
      expect(statSync(paths().data).size).toBe(37 * 453);
      expect(await readBack(dir(), 0, next)).toEqual({ entries: payloads, repairs: [] });
    });

    it('corrects an index entry shifted a few bytes into its own frame, keeping both neighbours readable', async () => {
      const next = writeSegments(ENTRIES, closed);
      writeIndexEntry(paths().index, 1, FRAME + 9);

      const { entries, repairs } = await readBack(dir(), 0, next);

      expect(entries).toEqual(ENTRIES);
      expect(repairs).toEqual([`corrected index entry 1 from the data (it gave ${FRAME + 9}, the frame is at ${FRAME})`]);
    });

    it('loses no entry and serves no garbage whichever single bit of whichever index entry flips', async () => {
      const lost: string[] = [];
      for (let entry = 0; entry < VARIED.length; entry++) {
        for (let bit = 0; bit < 64; bit++) {
          const next = writeSegments(VARIED, closed);
          flipIndexBit(paths().index, entry, bit);
          const { entries, repairs } = await readBack(dir(), 0, next);
          if (JSON.stringify(entries) !== JSON.stringify(VARIED)) {
            lost.push(`entry ${entry} bit ${bit}: ${JSON.stringify(entries)} (${repairs.join('; ')})`);
          }
        }
      }
      expect(lost).toEqual([]);
    });

    it('isolates only the entry a flipped data bit hits, whichever bit it is', async () => {
      const wrong: string[] = [];
      writeSegments(VARIED, closed);
      const frameEnds = [...readIndex(paths().index).slice(1), statSync(paths().data).size];
      for (let bit = 0; bit < 8 * frameEnds[frameEnds.length - 1]; bit++) {
        const next = writeSegments(VARIED, closed);
        flipBit(paths().data, bit);
        const hit = frameEnds.findIndex((end) => bit >> 3 < end);
        const { entries } = await readBack(dir(), 0, next);
        const expected =
          entries.length === VARIED.length && entries.every((entry, i) => (i === hit ? ERROR_NAMES.includes(entry) : entry === VARIED[i]));
        if (!expected) wrong.push(`bit ${bit} (entry ${hit}): ${JSON.stringify(entries)}`);
      }
      expect(wrong).toEqual([]);
    });
  });

  it('keeps every acknowledged entry when a torn last index entry points 9 bytes into the last frame', async () => {
    writeSegment(dir(), ENTRIES);
    const garbage = Buffer.alloc(8);
    garbage.writeBigUInt64BE(BigInt(2 * FRAME + 9));
    appendFileSync(paths().index, garbage);

    const { entries, repairs } = await readBack(dir());

    expect(entries).toEqual(ENTRIES);
    expect(repairs).toEqual(['dropped index entry 3: the data holds no frame for it']);
    expect(statSync(paths().data).size).toBe(3 * FRAME);
    expect(readIndex(paths().index)).toEqual([0, FRAME, 2 * FRAME]);
  });

  it('keeps the last entry when its own index entry is garbage pointing 9 bytes into its frame', async () => {
    writeSegment(dir(), ENTRIES);
    writeIndexEntry(paths().index, 2, 2 * FRAME + 9);

    const { entries } = await readBack(dir());

    expect(entries).toEqual(ENTRIES);
    expect(statSync(paths().data).size).toBe(3 * FRAME);
    expect(readIndex(paths().index)).toEqual([0, FRAME, 2 * FRAME]);
  });

  it('drops a zero-filled index tail that the data holds no frames for, losing nothing', async () => {
    writeSegment(dir(), ENTRIES);
    appendFileSync(paths().index, Buffer.alloc(32));

    const { entries, repairs } = await readBack(dir());

    expect(entries).toEqual(ENTRIES);
    expect(repairs).toEqual(['dropped index entries 3..6: the data holds no frame for them']);
    expect(statSync(paths().data).size).toBe(3 * FRAME);
  });

  it('keeps the frames a zero-filled index tail stands for (their data was durable before the index write)', async () => {
    const written = [...ENTRIES, '{"n":3}', '{"n":4}'];
    writeSegment(dir(), written);
    const index = readFileSync(paths().index);
    index.fill(0, 3 * 8);
    writeFileSync(paths().index, index);

    const { entries, repairs } = await readBack(dir());

    expect(entries).toEqual(written);
    expect(repairs).toEqual([
      'corrected 2 index entries from the data (entry 3: it gave 0, the frame is at 45; entry 4: it gave 0, the frame is at 60)',
    ]);
  });

  it('rebuilds a closed segment whose index lost entries: all of its entries were committed before the next segment began', async () => {
    const payloads = sameSizePayloads(37, 445);
    writeSegment(dir(), payloads);
    writeSegment(dir(), [], 37);
    truncateSync(paths().index, 10 * 8);

    const { entries, repairs } = await readBack(dir(), 0, 37);

    expect(entries).toEqual(payloads);
    expect(repairs).toEqual(['rebuilt 27 index entries from the data']);
  });

  it('isolates a run of wiped frames at their offsets and reads on after it', async () => {
    writeSegment(dir(), VARIED);
    const addresses = readIndex(paths().index);
    const data = readFileSync(paths().data);
    data.fill(0, addresses[1], addresses[3]);
    writeFileSync(paths().data, data);

    const { entries, repairs } = await readBack(dir());

    expect(entries).toEqual([VARIED[0], 'CorruptionError', 'CorruptionError', VARIED[3], VARIED[4]]);
    expect(repairs).toEqual(['entries 1..2 are damaged; they keep their offsets and are skipped at delivery']);
    expect(readIndex(paths().index)).toEqual(addresses);
  });

  it.each([
    ['beyond the data', (length: number) => (length ^ 0xff000000) >>> 0],
    ['a few bytes short', (length: number) => length - 3],
  ])('reads on past a middle frame whose length field points %s when the tail segment lost its index', async (_, damage) => {
    writeSegment(dir(), VARIED);
    const addresses = readIndex(paths().index);
    const data = readFileSync(paths().data);
    data.writeUInt32BE(damage(data.readUInt32BE(addresses[2])), addresses[2]);
    writeFileSync(paths().data, data);
    rmSync(paths().index);

    const { entries, repairs } = await readBack(dir());

    expect(entries).toEqual([VARIED[0], VARIED[1], expect.stringMatching(/Error$/), VARIED[3], VARIED[4]]);
    expect(repairs).toContain(
      `found the next intact entry ${addresses[3] - addresses[2]} bytes after damaged data at byte ${addresses[2]}; the damaged bytes keep one offset (entry 2)`,
    );
    expect(readIndex(paths().index)).toEqual(addresses);
  });

  it('reads on past a damaged frame to a frame larger than the read window when the index is missing', async () => {
    const payloads = ['{"n":0}', '{"n":1}', JSON.stringify('x'.repeat(1536 * 1024)), '{"n":3}'];
    writeSegment(dir(), payloads);
    flipByte(paths().data, FRAME + 1);
    rmSync(paths().index);

    expect((await readBack(dir())).entries).toEqual([payloads[0], 'CorruptionError', payloads[2], payloads[3]]);
  });

  it("reads on past a damaged frame that a closed segment's short index has no entry for", async () => {
    writeSegment(dir(), VARIED);
    writeSegment(dir(), [], VARIED.length);
    const addresses = readIndex(paths().index);
    truncateSync(paths().index, 8);
    flipByte(paths().data, addresses[1]);

    const { entries } = await readBack(dir(), 0, VARIED.length);

    expect(entries).toEqual([VARIED[0], 'CorruptionError', VARIED[2], VARIED[3], VARIED[4]]);
    expect(readIndex(paths().index)).toEqual(addresses);
  });

  it('cuts damaged bytes of a tail segment without an index when no intact frame follows them', async () => {
    writeSegment(dir(), VARIED);
    const addresses = readIndex(paths().index);
    const size = statSync(paths().data).size;
    flipByte(paths().data, addresses[4]);
    rmSync(paths().index);

    const { entries, repairs } = await readBack(dir());

    expect(entries).toEqual(VARIED.slice(0, 4));
    expect(repairs).toContain(`removed ${size - addresses[4]} bytes of data that hold no complete entry`);
    expect(statSync(paths().data).size).toBe(addresses[4]);
  });

  it("never scans past the entry count of a tail segment's index: later frames were never acknowledged", async () => {
    writeSegment(dir(), VARIED);
    const addresses = readIndex(paths().index);
    const size = statSync(paths().data).size;
    truncateSync(paths().index, 3 * 8);
    flipByte(paths().data, addresses[3]);

    const { entries, repairs } = await readBack(dir());

    expect(entries).toEqual(VARIED.slice(0, 3));
    expect(repairs).toEqual([`removed ${size - addresses[3]} bytes of unacknowledged data past the last indexed entry`]);
  });

  // Found by the fault suite's recovery fuzz (seed 1374739517): the first frame's length field and the next entry's
  // index address were both damaged, and the intact frame between them was isolated.
  it('keeps an intact frame between a damaged frame and the next one its index places, when its own index entry is wrong', async () => {
    writeSegment(dir(), VARIED);
    writeSegment(dir(), [], VARIED.length);
    flipBit(paths().data, 0);
    flipIndexBit(paths().index, 1, 0);

    const { entries } = await readBack(dir(), 0, VARIED.length);

    expect(entries).toEqual(['CorruptionError', ...VARIED.slice(1)]);
  });

  it.each([
    ['a tail', undefined],
    ['a closed', VARIED.length],
  ])('keeps the intact entries after a damaged first frame of %s segment whose later index entries are all wrong', async (_, next) => {
    writeSegment(dir(), VARIED);
    if (next !== undefined) writeSegment(dir(), [], next);
    const addresses = readIndex(paths().index);
    flipBit(paths().data, 0);
    for (let entry = 1; entry < VARIED.length; entry++) flipIndexBit(paths().index, entry, 0);

    const { entries } = await readBack(dir(), 0, next);

    expect(entries).toEqual(['CorruptionError', ...VARIED.slice(1)]);
    expect(readIndex(paths().index)).toEqual(addresses);
  });

  it('never takes an unacknowledged frame for an entry when the run after the damage is longer than the entries left', async () => {
    writeSegment(dir(), VARIED);
    truncateSync(paths().index, 3 * 8);
    flipBit(paths().data, 0);
    flipIndexBit(paths().index, 1, 0);
    flipIndexBit(paths().index, 2, 0);

    const { entries } = await readBack(dir());

    expect(entries).not.toContain(VARIED[3]);
    expect(entries[0]).toBe('CorruptionError');
  });

  it('leaves bytes it cannot place in a closed segment in place (nothing is appended there)', async () => {
    writeSegment(dir(), ENTRIES);
    writeSegment(dir(), [], 3);
    appendFileSync(paths().data, Buffer.from([0, 0, 0, 99, 1, 2, 3]));

    const { entries, repairs } = await readBack(dir(), 0, 3);

    expect(entries).toEqual(ENTRIES);
    expect(repairs).toEqual(['left 7 bytes past the last entry in place: they hold no entry']);
    expect(statSync(paths().data).size).toBe(3 * FRAME + 7);
  });

  it('walks frames larger than its read window', async () => {
    const payloads = [
      '{"n":0}',
      JSON.stringify('x'.repeat(1536 * 1024)),
      '{"n":2}',
      JSON.stringify('y'.repeat(3 * 1024 * 1024)),
      '{"n":4}',
    ];
    writeSegment(dir(), payloads);
    flipIndexBit(paths().index, 2, 20);
    flipIndexBit(paths().index, 4, 3);

    const { entries, repairs } = await readBack(dir());

    expect(entries).toEqual(payloads);
    expect(repairs).toEqual([expect.stringMatching(/^corrected 2 index entries from the data \(entry 2: .*; entry 4: /)]);
  });

  it('knows a segment is closed when the topic has a later one, and keeps all of its entries', async () => {
    writeSegment(dir(), ENTRIES);
    writeSegment(dir(), ['{"n":3}'], 3);
    truncateSync(paths().index, 8);

    const { chain, repairs } = await SegmentFileChain.open(dir(), 1024);
    try {
      expect(await Promise.all([0, 1, 2, 3].map(async (offset) => String(await chain.read(offset))))).toEqual([...ENTRIES, '{"n":3}']);
      expect(repairs).toEqual([{ startOffset: 0, repairs: ['rebuilt 2 index entries from the data'] }]);
    } finally {
      await chain.close();
    }
  });

  it('loses nothing when the broker dies while rebuilding a missing index', async () => {
    writeSegment(dir(), ENTRIES);
    rmSync(paths().index);
    // The rebuilt entries never reach the index file, as if the process had died before writing them.
    const append = jest.spyOn(FileHandle.prototype, 'append').mockRejectedValueOnce(new Error('simulated crash'));
    await expect(SegmentFile.open(dir(), 0)).rejects.toThrow('Cannot recover segment 0');
    append.mockRestore();

    const { entries, repairs } = await readBack(dir());

    expect(entries).toEqual(ENTRIES);
    expect(repairs).toEqual(['the index file was missing', 'rebuilt 3 index entries from the data']);
    expect(readIndex(paths().index)).toEqual([0, FRAME, 2 * FRAME]);
    expect(readdirSync(dir()).sort()).toEqual(['0000000000000000000.idx', '0000000000000000000.mmm']);
  });

  it('recovers every entry of random segments whatever single fault hits their index', async () => {
    const payload = fc.string({ minLength: 1, maxLength: 40 }).map((text) => JSON.stringify(text));
    const indexFault = fc.oneof(
      fc.record({ kind: fc.constant('flip' as const), entry: fc.nat(), bit: fc.integer({ min: 0, max: 63 }) }),
      fc.record({ kind: fc.constant('overwrite' as const), entry: fc.nat(), address: fc.nat({ max: 2000 }) }),
      fc.record({ kind: fc.constant('tail' as const), tail: fc.uint8Array({ minLength: 1, maxLength: 40 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(payload, { minLength: 1, maxLength: 8 }), indexFault, fc.boolean(), async (payloads, fault, closed) => {
        const next = writeSegments(payloads, closed);
        if (fault.kind === 'flip') flipIndexBit(paths().index, fault.entry % payloads.length, fault.bit);
        if (fault.kind === 'overwrite') writeIndexEntry(paths().index, fault.entry % payloads.length, fault.address);
        if (fault.kind === 'tail') appendFileSync(paths().index, fault.tail);
        expect((await readBack(dir(), 0, next)).entries).toEqual(payloads);
      }),
      { numRuns: 300 },
    );
  });
});

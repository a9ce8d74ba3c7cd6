import { appendFileSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { SegmentFile } from '../../src/storage/segment-file';
import { bytes, useTempDir } from './temp-dir';
import { flipByte, readBack, segmentPaths, writeSegment } from './segment-files';

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
    await segment.append([bytes('{"n":"new"}')]);
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
    expect(await readBack(dir())).toEqual({ entries: [ENTRIES[0], 'ChecksumMismatchError', ENTRIES[2]], repairs: [] });
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
    await segment.append([bytes('{"n":3}')]);
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
    expect(repairs).toContain('rebuilt 3 index entries from the data (1 corrupt, isolated)');
    expect(repairs).toContain('removed 5 bytes of data that hold no complete entry');
  });

  it('keeps the valid prefix of a garbage index and rebuilds the rest from the data', async () => {
    writeSegment(dir(), ENTRIES);
    const index = readFileSync(paths().index);
    index.fill(0xab, 8);
    writeFileSync(paths().index, index);
    const { entries, repairs } = await readBack(dir());
    expect(entries).toEqual(ENTRIES);
    expect(repairs[0]).toBe('index entries 1..2 were invalid');
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

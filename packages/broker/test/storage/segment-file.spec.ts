import { readFileSync, writeFileSync } from 'node:fs';
import { FileHandle } from '../../src/storage/file-handle';
import { parseSegmentFileName, SegmentFile, segmentFileName } from '../../src/storage/segment-file';
import { StorageError } from '../../src/storage/storage.errors';
import { bytes, useTempDir } from './temp-dir';
import { readBack, segmentPaths, writeSegment, appendEntries } from './segment-files';
import { encodeFrames } from '../../src/storage/entry-frame';

describe('SegmentFile', () => {
  const dir = useTempDir();
  afterEach(() => jest.restoreAllMocks());

  it('names files with the 19-digit start offset', () => {
    expect(segmentFileName(123456, '.mmm')).toBe('0000000000000123456.mmm');
    expect(parseSegmentFileName('0000000000000123456.mmm')).toBe(123456);
    expect(parseSegmentFileName('0000000000000123456.idx')).toBeUndefined();
    expect(parseSegmentFileName('123.mmm')).toBeUndefined();
  });

  it('appends a group as one unit and reads every entry back after a reopen', async () => {
    const { segment } = await SegmentFile.open(dir(), 0);
    await appendEntries(segment, [bytes('a'), bytes('bb')]);
    await appendEntries(segment, [bytes('ccc')]);
    expect(segment.count).toBe(3);
    expect((await segment.read(1)).toString()).toBe('bb');
    await segment.close();
    expect(await readBack(dir())).toEqual({ entries: ['a', 'bb', 'ccc'], repairs: [] });
    expect(readFileSync(segmentPaths(dir()).index).length).toBe(24);
  });

  it('appends small and large groups alike (large writes leave the event loop) and reads them back intact', async () => {
    const { segment } = await SegmentFile.open(dir(), 0);
    const large = Array.from({ length: 40 }, (_, n) => Buffer.alloc(10_000, 97 + (n % 26)));
    await appendEntries(segment, [bytes('small')]);
    await appendEntries(segment, large);
    await appendEntries(segment, [bytes('after')]);
    await segment.close();
    const { entries } = await readBack(dir());
    expect(entries).toEqual(['small', ...large.map((payload) => payload.toString()), 'after']);
  });

  it('loads a segment written by the original Java broker', async () => {
    const java = ['{"topic":{"name":"order.created"},"content":{"id":1}}', '{"topic":{"name":"order.created"},"content":{"id":2}}'];
    writeSegment(dir(), java);
    expect(readFileSync(segmentPaths(dir()).index).toString('hex')).toBe('0000000000000000000000000000003d');
    expect((await readBack(dir())).entries).toEqual(java);
  });

  it('syncs the data before the index that points into it, and only when something was written', async () => {
    const order: string[] = [];
    const sync = FileHandle.prototype.sync;
    jest.spyOn(FileHandle.prototype, 'sync').mockImplementation(async function (this: FileHandle) {
      order.push(this.path.slice(-4));
      return sync.call(this);
    });
    const { segment } = await SegmentFile.open(dir(), 0);
    order.length = 0;
    await appendEntries(segment, [bytes('x'), bytes('y')]);
    expect(order).toEqual(['.mmm', '.idx']);
    await segment.sync();
    expect(order).toEqual(['.mmm', '.idx']);
    await segment.close();
  });

  it('keeps the segment marked for the next sync when an fsync fails', async () => {
    const { segment } = await SegmentFile.open(dir(), 0);
    await appendEntries(segment, [bytes('committed')]);
    const encoded = encodeFrames([bytes('next')]);
    await segment.write(encoded.bytes, encoded.starts);
    jest.spyOn(FileHandle.prototype, 'sync').mockRejectedValueOnce(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
    await expect(segment.sync()).rejects.toThrow(StorageError);
    jest.restoreAllMocks();
    expect(segment.needsSync).toBe(true);
    await segment.sync();
    await segment.close();
    expect((await readBack(dir())).entries).toEqual(['committed', 'next']);
  });

  it('cuts back a short write (disk full mid-write), leaving no trace of it', async () => {
    const { segment } = await SegmentFile.open(dir(), 0);
    await appendEntries(segment, [bytes('committed')]);
    const writeAt = FileHandle.prototype.writeAt;
    jest.spyOn(FileHandle.prototype, 'writeAt').mockImplementation(async function (this: FileHandle, buf, position) {
      await writeAt.call(this, buf.subarray(0, 5), position);
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    });
    await expect(appendEntries(segment, [bytes('a-longer-payload')])).rejects.toThrow(/Writing 1 entries to segment 0 failed/);
    jest.restoreAllMocks();
    expect(segment.count).toBe(1);
    await segment.close();
    expect(readFileSync(segmentPaths(dir()).data).length).toBe(8 + 'committed'.length);
    expect((await readBack(dir())).entries).toEqual(['committed']);
  });

  it("cuts a torn index tail beside empty data before writing, so later entries start at the index's first slot", async () => {
    // Found by the fault suite: a power cut left a new segment with 0 data bytes and 2 index bytes; entries appended
    // after them were read back from addresses shifted by 2 bytes.
    writeFileSync(segmentPaths(dir()).data, Buffer.alloc(0));
    writeFileSync(segmentPaths(dir()).index, Buffer.from([0x12, 0x34]));
    const { segment, repairs } = await SegmentFile.open(dir(), 0);
    expect(repairs).toEqual(['cut a torn index tail of 2 bytes (0 entries kept)']);
    await appendEntries(segment, [bytes('a'), bytes('bb')]);
    await segment.close();
    expect(readFileSync(segmentPaths(dir()).index).length).toBe(16);
    expect((await readBack(dir())).entries).toEqual(['a', 'bb']);
  });

  it('truncates to a given number of entries, data and index alike', async () => {
    const { segment } = await SegmentFile.open(dir(), 0);
    await appendEntries(segment, [bytes('a'), bytes('bb'), bytes('ccc')]);
    await segment.truncate(1);
    await segment.sync();
    expect(segment.count).toBe(1);
    await segment.close();
    expect(readFileSync(segmentPaths(dir()).data).length).toBe(9);
    expect((await readBack(dir())).entries).toEqual(['a']);
  });
});

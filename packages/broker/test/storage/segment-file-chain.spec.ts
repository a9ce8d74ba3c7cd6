import { readdirSync, rmSync, statSync } from 'node:fs';
import { SegmentFileChain } from '../../src/storage/segment-file-chain';
import { bytes, useTempDir } from './temp-dir';
import { segmentPaths, appendEntries } from './segment-files';
import { IoSpy } from './io-spy';
import { encodeFrames } from '../../src/storage/entry-frame';

async function readAll(chain: SegmentFileChain): Promise<string[]> {
  const out: string[] = [];
  for (let offset = 0; offset < chain.tailOffset; offset++) {
    out.push(
      await chain.read(offset).then(
        (payload) => String(payload),
        (error: Error) => error.name,
      ),
    );
  }
  return out;
}

describe('SegmentFileChain', () => {
  const dir = useTempDir();

  it('starts an empty topic with segment 0 and returns null past the tail', async () => {
    const { chain } = await SegmentFileChain.open(dir(), 1024);
    expect(chain.tailOffset).toBe(0);
    expect(await chain.read(0)).toBeNull();
    expect(readdirSync(dir()).sort()).toEqual(['0000000000000000000.idx', '0000000000000000000.mmm']);
    await chain.close();
  });

  it('rotates at maxBytes=1 so every message gets its own segment, and keeps offsets across a restart', async () => {
    const first = await SegmentFileChain.open(dir(), 1);
    for (const text of ['m0', 'm1', 'm2']) await appendEntries(first.chain, [bytes(text)]);
    await first.chain.close();
    expect(readdirSync(dir()).filter((name) => name.endsWith('.mmm'))).toEqual([
      '0000000000000000000.mmm',
      '0000000000000000001.mmm',
      '0000000000000000002.mmm',
    ]);
    for (const start of [0, 1, 2]) expect(statSync(segmentPaths(dir(), start).index).size).toBe(8);

    const { chain } = await SegmentFileChain.open(dir(), 1);
    expect(await readAll(chain)).toEqual(['m0', 'm1', 'm2']);
    expect(await appendEntries(chain, [bytes('m3')])).toBe(3);
    expect(readdirSync(dir())).toContain('0000000000000000003.mmm');
    await chain.close();
  });

  it('treats maxBytes as a soft cap: a large message is never split', async () => {
    const { chain } = await SegmentFileChain.open(dir(), 100);
    await appendEntries(chain, [Buffer.alloc(500, 'x')]);
    await appendEntries(chain, [bytes('small')]);
    expect(statSync(segmentPaths(dir(), 0).data).size).toBe(508);
    expect(statSync(segmentPaths(dir(), 1).data).size).toBe(13);
    expect(chain.segmentCount).toBe(2);
    await chain.close();
  });

  it('skips offsets a damaged segment lost instead of stopping at the hole', async () => {
    const first = await SegmentFileChain.open(dir(), 1);
    for (const text of ['m0', 'm1', 'm2']) await appendEntries(first.chain, [bytes(text)]);
    await first.chain.close();
    rmSync(segmentPaths(dir(), 1).data);
    const { chain, repairs } = await SegmentFileChain.open(dir(), 1);
    expect(await readAll(chain)).toEqual(['m0', 'CorruptionError', 'm2']);
    expect(repairs).toEqual([
      {
        startOffset: 0,
        repairs: ['ends at offset 1 but the next segment starts at 2; offsets in between are skipped at delivery'],
      },
    ]);
    await chain.close();
  });

  it('removes the oldest segment, never the tail, and reopens starting at the next one', async () => {
    const first = await SegmentFileChain.open(dir(), 1);
    for (const text of ['m0', 'm1', 'm2']) await appendEntries(first.chain, [bytes(text)]);
    expect(await first.chain.removeHead()).toMatchObject({ startOffset: 0, endOffset: 1 });
    expect(await first.chain.removeHead()).toMatchObject({ startOffset: 1, endOffset: 2 });
    await expect(first.chain.removeHead()).rejects.toThrow('The tail segment');
    expect([first.chain.startOffset, first.chain.tailOffset]).toEqual([2, 3]);
    await first.chain.close();
    expect(readdirSync(dir()).sort()).toEqual(['0000000000000000002.idx', '0000000000000000002.mmm']);

    const { chain, repairs } = await SegmentFileChain.open(dir(), 1);
    expect(repairs).toEqual([]);
    expect([chain.startOffset, chain.tailOffset, String(await chain.read(2))]).toEqual([2, 3, 'm2']);
    await chain.close();
  });

  it('removes an index left without its data file (a crash between the two unlinks) when it opens', async () => {
    const first = await SegmentFileChain.open(dir(), 1);
    for (const text of ['m0', 'm1']) await appendEntries(first.chain, [bytes(text)]);
    await first.chain.close();
    rmSync(segmentPaths(dir(), 0).data);
    const { chain } = await SegmentFileChain.open(dir(), 1);
    expect(readdirSync(dir()).sort()).toEqual(['0000000000000000001.idx', '0000000000000000001.mmm']);
    expect(chain.startOffset).toBe(1);
    await chain.close();
  });

  it('syncs every written segment even when the oldest is removed during the sync', async () => {
    const spy = IoSpy.install();
    try {
      const { chain } = await SegmentFileChain.open(dir(), 1);
      await appendEntries(chain, [bytes('m0')]);
      // Written, not synced yet: segments 1 and 2 (the tail) need the next sync.
      for (const text of ['m1', 'm2']) {
        const { bytes: frames, starts } = encodeFrames([bytes(text)]);
        await chain.write(frames, starts);
      }
      let removing: Promise<unknown> | undefined;
      spy.onSync((path, proceed) => {
        if (path !== segmentPaths(dir(), 1).data || removing) return undefined;
        removing = chain.removeHead();
        return removing.then(proceed);
      });
      await chain.sync();
      expect(removing).toBeDefined();
      expect(chain.needsSync).toBe(false);
      expect(spy.syncs).toContain(segmentPaths(dir(), 2).data);
      await chain.close();
    } finally {
      jest.restoreAllMocks();
    }
  });
});

import { readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Topic } from '@mmmq/core';
import { Logger } from '@nestjs/common';
import { FileHandle } from '../../src/storage/file-handle';
import { replayAppend } from '../../src/storage/journal/journal-replay';
import { SegmentFileChain } from '../../src/storage/segment-file-chain';
import { ChecksumMismatchError } from '../../src/storage/storage.errors';
import { crashCopy, JOURNAL_FILES, listFiles, losePower, TOPIC_FILES } from './crash-copy';
import { IoSpy } from './io-spy';
import { appendOp, recordRegions } from './journal-bytes';
import { Ledger } from './ledger';
import { bootContainer, recoverTwice } from './recovered-state';
import { appendEntries, flipByte, segmentPaths, writeSegment } from './segment-files';
import { useTempDir } from './temp-dir';

// Recovery reports the damage these tests make on purpose; those warnings are expected here.
Logger.overrideLogger(false);

const texts = (...payloads: string[]) => payloads.map((payload) => Buffer.from(payload));
/** A committed segment whose first entry is `start`, as the engine lays it out. */
const writeSegmentAt = (dir: string, start: number, payloads: string[]) => writeSegment(dir, payloads, start);

/** Every entry of the chain as text, a damaged one as its error's class name. */
async function contents(chain: SegmentFileChain): Promise<string[]> {
  const entries: string[] = [];
  for (let offset = 0; offset < chain.tailOffset; offset++) {
    entries.push(await chain.read(offset).then(String, (error: Error) => error.name));
  }
  return entries;
}

describe('replayAppend', () => {
  const dir = useTempDir();
  let chain: SegmentFileChain;
  const open = async (maxBytes = 1024 * 1024) => (chain = (await SegmentFileChain.open(dir(), maxBytes)).chain);
  afterEach(async () => {
    jest.restoreAllMocks();
    await chain.close();
  });

  it('is idempotent: entries already there with the same bytes are skipped, nothing is written', async () => {
    await open();
    await appendEntries(chain, texts('a', 'b', 'c'));
    const files = segmentPaths(dir());
    const before = [readFileSync(files.data), readFileSync(files.index)];
    const writes = jest.spyOn(FileHandle.prototype, 'writeAt');
    expect(await replayAppend(chain, appendOp('t', 0, ['a', 'b', 'c']))).toEqual([]);
    expect(await replayAppend(chain, appendOp('t', 1, ['b']))).toEqual([]);
    expect(writes).not.toHaveBeenCalled();
    expect([readFileSync(files.data), readFileSync(files.index)]).toEqual(before);
    expect(await contents(chain)).toEqual(['a', 'b', 'c']);
  });

  it('appends only the entries past the ones already there', async () => {
    await open();
    await appendEntries(chain, texts('a', 'b'));
    expect(await replayAppend(chain, appendOp('t', 0, ['a', 'b', 'c', 'd']))).toEqual([]);
    expect(await contents(chain)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('rewrites from the first entry that differs from the journal', async () => {
    await open();
    await appendEntries(chain, texts('a', 'b', 'X', 'Y'));
    const repairs = await replayAppend(chain, appendOp('t', 0, ['a', 'b', 'c', 'd', 'e']));
    expect(repairs).toEqual([expect.stringContaining('from offset 2')]);
    expect(await contents(chain)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('rewrites from a damaged entry', async () => {
    await open();
    await appendEntries(chain, texts('aaaa', 'bbbb', 'cccc'));
    await chain.close();
    flipByte(segmentPaths(dir()).data, 12 + 8 + 1);
    await open();
    expect(await contents(chain)).toEqual(['aaaa', 'ChecksumMismatchError', 'cccc']);
    expect(await replayAppend(chain, appendOp('t', 0, ['aaaa', 'bbbb', 'cccc']))).toEqual([expect.stringContaining('from offset 1')]);
    expect(await contents(chain)).toEqual(['aaaa', 'bbbb', 'cccc']);
  });

  it('fills offsets lost with damaged journal records with entries that fail their checksum', async () => {
    await open();
    await appendEntries(chain, texts('a'));
    const repairs = await replayAppend(chain, appendOp('t', 3, ['d', 'e']));
    expect(repairs).toEqual([expect.stringContaining('offsets 1..2 were lost')]);
    expect(await contents(chain)).toEqual(['a', 'ChecksumMismatchError', 'ChecksumMismatchError', 'd', 'e']);
    await expect(chain.read(1)).rejects.toBeInstanceOf(ChecksumMismatchError);
    const entries = await chain.readMany(0, 10);
    expect(entries.map((entry) => (entry instanceof Error ? entry.name : String(entry)))).toEqual([
      'a',
      'ChecksumMismatchError',
      'ChecksumMismatchError',
      'd',
      'e',
    ]);
  });

  it("writes at the journal's offsets when a segment in the middle is missing: the gap before them keeps its places", async () => {
    // Found by the fault suite: segment 0 held 1 entry, a later segment 12..16, the journal record for 1..3 was
    // damaged; replaying 4..7 cut the later segment and must still land at 4, not at 1.
    await open(40);
    await appendEntries(chain, texts('v0'));
    await chain.close();
    const later = (await SegmentFileChain.open(dir(), 40)).chain;
    await later.close();
    writeSegmentAt(dir(), 12, ['v12', 'v13']);
    await open(40);
    const repairs = await replayAppend(chain, appendOp('t', 4, ['v4', 'v5', 'v6', 'v7']));
    expect(repairs).toEqual([expect.stringContaining('rewritten'), expect.stringContaining('offsets 1..3 were lost')]);
    expect(await contents(chain)).toEqual(['v0', ...Array(3).fill('ChecksumMismatchError'), 'v4', 'v5', 'v6', 'v7']);
  });

  it("restarts the log at the journal's first offset when every segment before a later one is missing", async () => {
    writeSegmentAt(dir(), 3, ['x3', 'x4']);
    await open(40);
    await replayAppend(chain, appendOp('t', 0, ['m0', 'm1', 'm2', 'm3']));
    expect(await contents(chain)).toEqual(['m0', 'm1', 'm2', 'm3']);
    await chain.close();
    await open(40);
    expect(await contents(chain)).toEqual(['m0', 'm1', 'm2', 'm3']);
  });

  it.each(['cut', 'zeros', 'garbage'] as const)(
    'rebuilds a topic whose files lost their unsynced tail (%s) from the journal, across segments',
    async (lostTail) => {
      await open(40);
      await appendEntries(chain, texts('m0', 'm1', 'm2'));
      const durable = new Map(listFiles(dir()).map((path) => [path, statSync(path).size]));
      const unsynced = appendOp('t', 3, ['m3', 'm4', 'm5', 'm6', 'm7', 'm8']);
      for (const entry of ['m3', 'm4', 'm5', 'm6', 'm7', 'm8']) await replayAppend(chain, appendOp('t', chain.tailOffset, [entry]));
      expect(chain.segmentCount).toBeGreaterThan(1);
      await chain.close();
      for (const path of listFiles(dir()).filter((file) => TOPIC_FILES.test(file))) {
        const size = durable.get(path) ?? 0;
        const length = statSync(path).size;
        if (lostTail === 'cut') truncateSync(path, size);
        else
          writeFileSync(
            path,
            Buffer.concat([readFileSync(path).subarray(0, size), Buffer.alloc(length - size, lostTail === 'zeros' ? 0 : 0xa7)]),
          );
      }
      await open(40);
      await replayAppend(chain, unsynced);
      expect(await contents(chain)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8']);
    },
  );
});

describe('journal replay at boot', () => {
  const dir = useTempDir();
  afterEach(() => jest.restoreAllMocks());

  it('fsyncs the entries a killed broker left in the page cache before the journal forgets them, though it rewrites nothing', async () => {
    const spy = IoSpy.install();
    const container = await bootContainer(join(dir(), 'broker'));
    const alpha = await container.getOrCreate(Topic.of('alpha'));
    await new Ledger(container).commit([[alpha, ['a0', 'a1']]]);
    // A SIGKILL after the entries reached the topic files (page cache), before any flush fsync'd them.
    const crash = crashCopy(join(dir(), 'broker'), join(dir(), 'crash'), spy);
    await container.onApplicationShutdown();
    const synced: string[] = [];
    let booted = false;
    spy.onSync((path) => {
      if (TOPIC_FILES.test(path) && !booted) synced.push(path);
      return undefined;
    });
    const writes = jest.spyOn(FileHandle.prototype, 'writeAt');
    writes.mockClear();
    const restarted = await bootContainer(crash.dir);
    booted = true;
    try {
      expect(writes.mock.contexts.map((handle) => (handle as FileHandle).path).filter((path) => TOPIC_FILES.test(path))).toEqual([]);
      expect(synced.map((path) => path.slice(crash.dir.length + 1)).sort()).toEqual([
        'topics/alpha/0000000000000000000.idx',
        'topics/alpha/0000000000000000000.mmm',
      ]);
      expect(restarted.journal.flushed).toBeGreaterThanOrEqual(1);
    } finally {
      await restarted.onApplicationShutdown();
    }
  });

  it('fills the offsets of a damaged journal record with entries that fail their checksum, and replays the records after it', async () => {
    const spy = IoSpy.install();
    const container = await bootContainer(join(dir(), 'broker'));
    const ledger = new Ledger(container);
    const [alpha, beta] = await Promise.all(['alpha', 'beta'].map((name) => container.getOrCreate(Topic.of(name))));
    await ledger.commit([
      [alpha, ['a0', 'a1']],
      [beta, ['b0']],
    ]);
    await ledger.commit([[alpha, ['a2', 'a3']]]);
    await ledger.commit([
      [alpha, ['a4']],
      [beta, ['b1']],
    ]);
    const crash = crashCopy(join(dir(), 'broker'), join(dir(), 'crash'), spy);
    await container.onApplicationShutdown();
    losePower(crash, 'zeros');
    const [journalFile] = listFiles(crash.dir).filter((path) => JOURNAL_FILES.test(path));
    const second = recordRegions(journalFile)[1];
    flipByte(journalFile, second.start + 30);
    const state = await recoverTwice(crash.dir, ['alpha', 'beta']);
    expect(state.topics).toEqual({
      alpha: ['a0', 'a1', 'ChecksumMismatchError', 'ChecksumMismatchError', 'a4'],
      beta: ['b0', 'b1'],
    });
  });
});

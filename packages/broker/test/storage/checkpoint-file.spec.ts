import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointFile } from '../../src/storage/checkpoint-file';
import { Journal } from '../../src/storage/journal/journal';
import { openJournal } from './journal-fixture';
import { useTempDir } from './temp-dir';

describe('CheckpointFile', () => {
  const dir = useTempDir();
  let journal: Journal;
  const owner = () => ({ journal, topic: 'orders', consumerId: 'billing' });

  beforeEach(async () => {
    journal = await openJournal(dir());
  });

  afterEach(() => journal.close());

  it('creates the file at the initial offset as 8 big-endian bytes', async () => {
    const path = join(dir(), 'c.checkpoint');
    const { checkpoint } = await CheckpointFile.open(path, 7, 10, owner());
    expect(checkpoint.offset).toBe(7);
    expect(readFileSync(path).toString('hex')).toBe('0000000000000007');
    await checkpoint.close();
  });

  it('keeps an existing value, applies concurrent writes in call order in one journal record, and writes the file at the flush', async () => {
    const path = join(dir(), 'c.checkpoint');
    writeFileSync(path, Buffer.from('0000000000000005', 'hex'));
    const { checkpoint } = await CheckpointFile.open(path, 0, 10, owner());
    expect(checkpoint.offset).toBe(5);
    const before = { ...journal.stats };
    await Promise.all([6, 7, 8, 9].map((offset) => checkpoint.write(offset)));
    expect(checkpoint.offset).toBe(9);
    expect(journal.stats.journalFsyncs - before.journalFsyncs).toBe(1);
    expect(readFileSync(path).toString('hex')).toBe('0000000000000005');
    await journal.flush();
    expect(readFileSync(path).toString('hex')).toBe('0000000000000009');
    await checkpoint.close();
    const reopened = (await CheckpointFile.open(path, 0, 10, owner())).checkpoint;
    expect(reopened.offset).toBe(9);
    await reopened.close();
  });

  it('restarts a damaged checkpoint at 0 (redeliver rather than skip)', async () => {
    const path = join(dir(), 'c.checkpoint');
    writeFileSync(path, Buffer.from([0, 0, 5]));
    const { checkpoint, reset } = await CheckpointFile.open(path, 42, 10, owner());
    expect(reset).toBe('3 bytes that are neither an 8-byte checkpoint nor a subscription snapshot');
    expect(checkpoint.offset).toBe(0);
    expect(readFileSync(path).length).toBe(8);
    await checkpoint.close();
  });

  it('keeps a checkpoint at the log end (everything delivered)', async () => {
    const path = join(dir(), 'c.checkpoint');
    writeFileSync(path, Buffer.from('000000000000000a', 'hex'));
    const { checkpoint, reset } = await CheckpointFile.open(path, 0, 10, owner());
    expect(reset).toBeUndefined();
    expect(checkpoint.offset).toBe(10);
    await checkpoint.close();
  });

  it.each([
    ['1,000 past the log end', '00000000000003f2', 'offset 1010, past the log end 10'],
    ['all ones', 'ffffffffffffffff', 'offset 18446744073709552000, past the log end 10'],
  ])('restarts a checkpoint %s at 0 and rewrites it (its true value is unknown: redeliver, never skip)', async (_, hex, why) => {
    const path = join(dir(), 'c.checkpoint');
    writeFileSync(path, Buffer.from(hex, 'hex'));
    const { checkpoint, reset } = await CheckpointFile.open(path, 42, 10, owner());
    expect(reset).toBe(why);
    expect(checkpoint.offset).toBe(0);
    expect(readFileSync(path).toString('hex')).toBe('0000000000000000');
    await checkpoint.close();
  });

  describe('holding a subscription snapshot', () => {
    const snapshot = {
      cursor: 3,
      settled: [
        [5, 7],
        [9, 10],
      ] as Array<[number, number]>,
      counts: [{ offset: 4, deliveries: 3, nacks: 1 }],
      deliveredMark: 12,
    };

    it('journals it, writes it at the flush, and reads it back after a reopen', async () => {
      const path = join(dir(), 'c.checkpoint');
      const { checkpoint } = await CheckpointFile.open(path, 0, 20, owner());
      await checkpoint.write(snapshot);
      expect(checkpoint.snapshot).toEqual(snapshot);
      await journal.flush();
      await checkpoint.close();
      const reopened = (await CheckpointFile.open(path, 0, 20, owner())).checkpoint;
      expect(reopened.snapshot).toEqual(snapshot);
      // Back to a bare cursor: the file shrinks to the 8-byte form.
      await reopened.write(11);
      await journal.flush();
      expect(readFileSync(path).toString('hex')).toBe('000000000000000b');
      await reopened.close();
    });

    it.each([
      ['a flipped bit', (bytes: Buffer) => (bytes[20] ^= 0x01)],
      ['a cut-off tail', (bytes: Buffer) => bytes.fill(0, bytes.length - 6)],
    ])('restarts one with %s at 0', async (_, damage) => {
      const path = join(dir(), 'c.checkpoint');
      const { checkpoint } = await CheckpointFile.open(path, 0, 20, owner());
      await checkpoint.write(snapshot);
      await journal.flush();
      await checkpoint.close();
      const bytes = readFileSync(path);
      damage(bytes);
      writeFileSync(path, bytes);
      const { checkpoint: reopened, reset } = await CheckpointFile.open(path, 7, 20, owner());
      expect(reset).toMatch(/subscription snapshot/);
      expect(reopened.offset).toBe(0);
      await reopened.close();
    });

    it('restarts one whose settled ranges reach past the log end at 0', async () => {
      const path = join(dir(), 'c.checkpoint');
      const { checkpoint } = await CheckpointFile.open(path, 0, 20, owner());
      await checkpoint.write(snapshot);
      await journal.flush();
      await checkpoint.close();
      const { checkpoint: reopened, reset } = await CheckpointFile.open(path, 0, 8, owner());
      expect(reset).toBe('offset 10, past the log end 8');
      expect(reopened.offset).toBe(0);
      await reopened.close();
    });
  });
});

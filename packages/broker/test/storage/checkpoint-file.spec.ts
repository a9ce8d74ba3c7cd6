import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointFile } from '../../src/storage/checkpoint-file';
import { useTempDir } from './temp-dir';

describe('CheckpointFile', () => {
  const dir = useTempDir();

  it('creates the file at the initial offset as 8 big-endian bytes', async () => {
    const path = join(dir(), 'c.checkpoint');
    const { checkpoint } = await CheckpointFile.open(path, 7);
    expect(checkpoint.offset).toBe(7);
    expect(readFileSync(path).toString('hex')).toBe('0000000000000007');
    await checkpoint.close();
  });

  it('keeps an existing value and applies concurrent writes in call order', async () => {
    const path = join(dir(), 'c.checkpoint');
    writeFileSync(path, Buffer.from('0000000000000005', 'hex'));
    const { checkpoint } = await CheckpointFile.open(path, 0);
    expect(checkpoint.offset).toBe(5);
    await Promise.all([6, 7, 8, 9].map((offset) => checkpoint.write(offset)));
    expect(checkpoint.offset).toBe(9);
    await checkpoint.close();
    const reopened = (await CheckpointFile.open(path, 0)).checkpoint;
    expect(reopened.offset).toBe(9);
    await reopened.close();
  });

  it('restarts a damaged checkpoint at 0 (redeliver rather than skip)', async () => {
    const path = join(dir(), 'c.checkpoint');
    writeFileSync(path, Buffer.from([0, 0, 5]));
    const { checkpoint, reset } = await CheckpointFile.open(path, 42);
    expect(reset).toBe(true);
    expect(checkpoint.offset).toBe(0);
    expect(readFileSync(path).length).toBe(8);
    await checkpoint.close();
  });
});

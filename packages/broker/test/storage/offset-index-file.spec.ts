import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OffsetIndexFile } from '../../src/storage/offset-index-file';
import { useTempDir } from './temp-dir';

describe('OffsetIndexFile', () => {
  const dir = useTempDir();

  it('stores 8-byte big-endian addresses and reloads them', async () => {
    const path = join(dir(), 'i.idx');
    const { index } = await OffsetIndexFile.open(path);
    await index.append([0, 61]);
    await index.close();
    expect(readFileSync(path).toString('hex')).toBe('0000000000000000000000000000003d');
    const reopened = await OffsetIndexFile.open(path);
    expect(reopened.index.count).toBe(2);
    expect(reopened.index.addressOf(1)).toBe(61);
    expect(reopened.tornBytes).toBe(0);
    await reopened.index.close();
  });

  it('reports a torn tail without loading it', async () => {
    const path = join(dir(), 'i.idx');
    const { index } = await OffsetIndexFile.open(path);
    await index.append([0]);
    await index.close();
    appendFileSync(path, Buffer.from([1, 2, 3]));
    const reopened = await OffsetIndexFile.open(path);
    expect(reopened.index.count).toBe(1);
    expect(reopened.tornBytes).toBe(3);
    await reopened.index.truncate(1);
    expect(readFileSync(path).length).toBe(8);
    await reopened.index.close();
  });

  it('replaces entries in place and appends those past the end, keeping the ones before', async () => {
    const path = join(dir(), 'i.idx');
    const { index } = await OffsetIndexFile.open(path);
    await index.append([0, 10, 999]);
    await index.replaceDurably(2, [20, 30]);
    expect([0, 1, 2, 3].map((entry) => index.addressOf(entry))).toEqual([0, 10, 20, 30]);
    await index.close();
    expect(readFileSync(path).toString('hex')).toBe(['0', 'a', '14', '1e'].map((hex) => hex.padStart(16, '0')).join(''));
  });
});

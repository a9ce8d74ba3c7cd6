import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PURGE_MARK_FILE, PurgeMark } from '../../src/storage/purge-mark';
import { useTempDir } from './temp-dir';

describe('PurgeMark', () => {
  const dir = useTempDir();

  it('is 0 without a file, and writes a move to its file whole before it resolves', async () => {
    const mark = await PurgeMark.open(dir());
    expect(mark.below).toBe(0);
    expect(readdirSync(dir())).toEqual([]);

    expect(await mark.moveTo(12)).toBe(12);
    expect(mark.below).toBe(12);
    expect(readFileSync(join(dir(), PURGE_MARK_FILE), 'utf8')).toBe('12\n');
    expect(readdirSync(dir())).toEqual([PURGE_MARK_FILE]); // no temp file left
    expect((await PurgeMark.open(dir())).below).toBe(12);
  });

  it('never moves back, and applies concurrent moves one at a time', async () => {
    const mark = await PurgeMark.open(dir());
    const moves = await Promise.all([mark.moveTo(5), mark.moveTo(9), mark.moveTo(3)]);
    expect(moves).toEqual([5, 9, 9]);
    expect((await PurgeMark.open(dir())).below).toBe(9);
  });

  it('ignores a temporary file a crash left before the rename: the last mark written holds', async () => {
    await (await PurgeMark.open(dir())).moveTo(4);
    writeFileSync(join(dir(), `${PURGE_MARK_FILE}.tmp`), '40\n');
    const reopened = await PurgeMark.open(dir());
    expect(reopened.below).toBe(4);
    expect(await reopened.moveTo(6)).toBe(6);
    expect(readFileSync(join(dir(), PURGE_MARK_FILE), 'utf8')).toBe('6\n');
  });

  it('reads a damaged file as nothing purged: it shows too much rather than hide a dead letter', async () => {
    writeFileSync(join(dir(), PURGE_MARK_FILE), 'x7\n');
    expect((await PurgeMark.open(dir())).below).toBe(0);
  });
});

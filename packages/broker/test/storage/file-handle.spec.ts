import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileHandle } from '../../src/storage/file-handle';
import { StorageError } from '../../src/storage/storage.errors';
import { bytes, useTempDir } from './temp-dir';

describe('FileHandle', () => {
  const dir = useTempDir();

  it('appends, syncs and reads back at positions', async () => {
    const file = await FileHandle.open(join(dir(), 'a'), true);
    await file.append(bytes('hello '));
    await file.append(bytes('world'));
    await file.sync();
    expect(file.size).toBe(11);
    expect((await file.read(6, 5)).toString()).toBe('world');
    expect(readFileSync(join(dir(), 'a'), 'utf8')).toBe('hello world');
    await file.close();
    await file.close();
  });

  it('picks up the size of an existing file and truncates it', async () => {
    writeFileSync(join(dir(), 'b'), 'abcdef');
    const file = await FileHandle.open(join(dir(), 'b'), false);
    expect(file.size).toBe(6);
    await file.truncate(2);
    await file.append(bytes('Z'));
    expect(readFileSync(join(dir(), 'b'), 'utf8')).toBe('abZ');
    await file.close();
  });

  it('fails a read past the end instead of returning fewer bytes', async () => {
    const file = await FileHandle.open(join(dir(), 'c'), true);
    await file.append(bytes('abc'));
    await expect(file.read(1, 5)).rejects.toThrow(StorageError);
    await file.close();
  });

  it('fails to open a missing file without create', async () => {
    await expect(FileHandle.open(join(dir(), 'missing'), false)).rejects.toThrow(/Cannot open/);
  });
});

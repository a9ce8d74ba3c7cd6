import * as nodeFs from 'node:fs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@mmmq/test-support';
import { DescriptorPool } from '../../src/storage/descriptor-pool';
import { FileHandle } from '../../src/storage/file-handle';
import { bytes, useTempDir } from './temp-dir';

// The module object itself, so its functions can be spied on (an `import * as` namespace is read-only).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require('node:fs') as typeof nodeFs;

describe('DescriptorPool and FileHandle', () => {
  const dir = useTempDir();

  afterEach(() => jest.restoreAllMocks());

  it('keeps at most `max` files open, closing the least recently used idle one, and reopens on demand where it was', async () => {
    const pool = new DescriptorPool(2);
    const files = await Promise.all(['a', 'b', 'c', 'd'].map((name) => FileHandle.open(join(dir(), name), true, pool)));
    expect(pool.view().open).toBe(2);
    expect(pool.view().peak).toBe(2);
    for (const [i, file] of files.entries()) {
      await file.append(bytes(`${i}-first `));
      await file.sync();
    }
    for (const [i, file] of files.entries()) await file.append(bytes(`${i}-second`));
    for (const [i, file] of files.entries()) expect((await file.read(0, file.size)).toString()).toBe(`${i}-first ${i}-second`);
    for (const file of files) await file.sync();
    for (const [i, file] of files.entries()) expect(readFileSync(file.path, 'utf8')).toBe(`${i}-first ${i}-second`);
    expect(pool.view()).toMatchObject({ max: 2, peak: 2 });
    expect(pool.view().reopens).toBeGreaterThan(0);
    for (const file of files) await file.close();
    expect(pool.view().open).toBe(0);
  });

  it('fsyncs a file with unsynced writes before closing it, and never closes one with an operation in flight', async () => {
    const pool = new DescriptorPool(1);
    const a = await FileHandle.open(join(dir(), 'a'), true, pool);
    await a.append(bytes('dirty'));
    // The fsync the eviction makes is held until released: `b` waits for its descriptor meanwhile.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const fdatasync = fs.fdatasync;
    const evictionSync = jest.spyOn(fs, 'fdatasync').mockImplementation((fd, callback) => {
      void held.then(() => fdatasync(fd, callback));
    });
    const opening = FileHandle.open(join(dir(), 'b'), true, pool);
    await waitFor(() => evictionSync.mock.calls.length === 1, { message: 'the eviction to fsync the dirty file' });
    expect(a.isOpen).toBe(true);
    expect(pool.view().open).toBe(1);
    release();
    const b = await opening;
    expect(a.isOpen).toBe(false);
    expect(a.dirty).toBe(false);
    evictionSync.mockRestore();

    // A read in flight pins `b`: opening `c` waits for it, then closes `b`.
    await b.append(bytes('0123456789'));
    await b.sync();
    const read = b.read(0, 10);
    const c = FileHandle.open(join(dir(), 'c'), true, pool);
    expect((await read).toString()).toBe('0123456789');
    await (await c).close();
    expect(pool.view().peak).toBe(1);
    await a.close();
    await b.close();
  });

  it('remembers an fsync that failed when it closed a dirty file: the next sync fails with it, never succeeds', async () => {
    const pool = new DescriptorPool(1);
    const a = await FileHandle.open(join(dir(), 'a'), true, pool);
    await a.append(bytes('dirty'));
    jest
      .spyOn(fs, 'fdatasync')
      .mockImplementationOnce((_fd, callback) => callback(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })));
    const b = await FileHandle.open(join(dir(), 'b'), true, pool);
    expect(a.isOpen).toBe(false);
    await expect(a.sync()).rejects.toThrow(/An earlier fsync of .* failed/);
    await expect(a.sync()).rejects.toThrow(/An earlier fsync of .* failed/);
    await a.close();
    await b.close();
  });

  it('does not recreate a file removed while its descriptor was closed', async () => {
    const pool = new DescriptorPool(1);
    const a = await FileHandle.open(join(dir(), 'a'), true, pool);
    const b = await FileHandle.open(join(dir(), 'b'), true, pool);
    nodeFs.rmSync(a.path);
    await expect(a.read(0, 1)).rejects.toThrow(/Cannot reopen/);
    expect(pool.view().open).toBe(0);
    await b.append(bytes('b still works'));
    await a.close();
    await b.close();
  });

  it('closes clean files nothing used for a whole sweep interval, and leaves dirty, busy and recently used ones open', async () => {
    const pool = new DescriptorPool(100);
    const [idle, dirty, busy, used] = await Promise.all(
      ['idle', 'dirty', 'busy', 'used'].map((name) => FileHandle.open(join(dir(), name), true, pool)),
    );
    await dirty.append(bytes("not yet fsync'd"));
    await busy.append(bytes('0123456789'));
    await busy.sync();
    expect(pool.closeIdle()).toBe(0);
    // A read in flight pins `busy` through the next sweep; `used` is used between the sweeps.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const read = fs.read;
    jest.spyOn(fs, 'read').mockImplementationOnce(((...args: Parameters<typeof fs.read>) => {
      void held.then(() => (read as (...a: unknown[]) => void)(...args));
    }) as typeof fs.read);
    const reading = busy.read(0, 10);
    await used.append(bytes('used'));
    expect(pool.closeIdle()).toBe(1);
    expect([idle.isOpen, dirty.isOpen, busy.isOpen, used.isOpen]).toEqual([false, true, true, true]);
    release();
    expect((await reading).toString()).toBe('0123456789');
    await dirty.sync();
    await used.sync();
    expect(pool.closeIdle() + pool.closeIdle()).toBe(3);
    expect(pool.view()).toMatchObject({ open: 0, idleCloses: 4 });
    // Closed for being idle, not forgotten: the next use reopens it where it was.
    expect((await dirty.read(0, 5)).toString()).toBe('not y');
    for (const file of [idle, dirty, busy, used]) await file.close();
  });
});

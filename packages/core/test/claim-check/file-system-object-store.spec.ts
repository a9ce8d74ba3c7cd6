import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { useTempDir } from '@mmmq/test-support';
import { FileSystemObjectStore, InvalidObjectKeyError, ObjectNotFoundError } from '../../src';

const DAY = 24 * 60 * 60 * 1000;
const metadata = (size: number, expiresAt = Date.now() + DAY) => ({ size, sha256: '0'.repeat(64), expiresAt });

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('FileSystemObjectStore', () => {
  const dir = useTempDir('mmmq-object-store-');

  it('reads back what it stored, as a file named by the key', async () => {
    const store = new FileSystemObjectStore(dir());
    const body = Buffer.from('{"large":true}');
    await store.put('a1b2-c3', body, metadata(body.length));
    expect(await readAll(await store.get('a1b2-c3'))).toEqual(body);
    expect(await readFile(join(dir(), 'a1b2-c3'))).toEqual(body);
  });

  it('never leaves a partial object under the key: a write that fails leaves no object and no temporary file', async () => {
    const store = new FileSystemObjectStore(dir());
    // Expiry far outside what a file time can hold makes the write fail after the bytes went to the temporary file.
    const put = store.put('half-written', Buffer.alloc(1024, 1), metadata(1024, Number.NaN));
    await expect(put).rejects.toThrow();
    await expect(store.get('half-written')).rejects.toBeInstanceOf(ObjectNotFoundError);
    expect(await readdir(join(dir(), '.tmp'))).toEqual([]);
  });

  it('writes through a temporary file that is renamed once complete: no reader sees a prefix', async () => {
    const store = new FileSystemObjectStore(dir());
    const body = Buffer.alloc(8 * 1024 * 1024, 7);
    const seen: number[] = [];
    const writing = store.put('big', body, metadata(body.length));
    // Whenever the key exists during the write, it has every byte.
    let done = false;
    void writing.finally(() => (done = true));
    while (!done) {
      const size = await stat(join(dir(), 'big')).then(
        (info) => info.size,
        () => undefined,
      );
      if (size !== undefined) seen.push(size);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await writing;
    expect(seen.every((size) => size === body.length)).toBe(true);
    expect((await readAll(await store.get('big'))).equals(body)).toBe(true);
  });

  it('answers ObjectNotFoundError for a missing key, and deleting one is not an error', async () => {
    const store = new FileSystemObjectStore(dir());
    await expect(store.get('nothing-here')).rejects.toBeInstanceOf(ObjectNotFoundError);
    await expect(store.delete('nothing-here')).resolves.toBeUndefined();
    await store.put('gone', Buffer.from('1'), metadata(1));
    await store.delete('gone');
    await expect(store.get('gone')).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it.each(['../outside', '../../etc/passwd', '/etc/passwd', 'a/b', '..', '.', '.tmp', '', 'a\\b', 'x'.repeat(201), 'naïve'])(
    'refuses the hostile or invalid key %j before touching the file system',
    async (key) => {
      const root = join(dir(), 'store');
      const store = new FileSystemObjectStore(root);
      await writeFile(join(dir(), 'outside'), 'secret');
      await expect(store.get(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
      await expect(store.put(key, Buffer.from('x'), metadata(1))).rejects.toBeInstanceOf(InvalidObjectKeyError);
      await expect(store.delete(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
      expect(await readFile(join(dir(), 'outside'), 'utf8')).toBe('secret');
    },
  );

  it('deletes expired objects (and only those) when asked', async () => {
    const store = new FileSystemObjectStore(dir());
    const now = Date.now();
    await store.put('expired', Buffer.from('1'), metadata(1, now - 1000));
    await store.put('valid', Buffer.from('2'), metadata(1, now + DAY));
    expect(await store.deleteExpired(now)).toBe(1);
    await expect(store.get('expired')).rejects.toBeInstanceOf(ObjectNotFoundError);
    expect(await readAll(await store.get('valid'))).toEqual(Buffer.from('2'));
  });
});

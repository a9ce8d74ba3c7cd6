import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { ObjectNotFoundError } from './claim-check.errors';
import { assertObjectKey, ObjectMetadata, ObjectStore } from './object-store';

/** Half-written objects live here until renamed; keys never start with `.`, so it cannot clash with one. */
const TEMP_DIR = '.tmp';

/**
 * Objects as files in one directory (`rootDir`), each named by its key, its modification time set to its expiry.
 * A write is atomic and durable: the bytes go to a temporary file, which is fsynced, then renamed to the key, and the
 * directory is fsynced; a reader sees the whole object or none. Keys are checked before any path is built (see
 * `assertObjectKey`), so a key from a message cannot reach outside `rootDir`.
 *
 * Shared storage (NFS, a mounted volume) lets producers and consumers on different hosts use it; nothing deletes
 * objects unless {@link deleteExpired} is called (say, from a daily job).
 */
export class FileSystemObjectStore implements ObjectStore {
  private ready?: Promise<void>;

  constructor(readonly rootDir: string) {}

  async put(key: string, body: Buffer, metadata: ObjectMetadata): Promise<void> {
    const target = this.pathOf(key);
    await this.directories();
    const temp = join(this.rootDir, TEMP_DIR, `${randomUUID()}.part`);
    try {
      const file = await open(temp, 'wx');
      try {
        await file.writeFile(body);
        const expiry = new Date(metadata.expiresAt);
        await file.utimes(expiry, expiry);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    await this.syncDirectory();
  }

  async get(key: string): Promise<Readable> {
    const path = this.pathOf(key);
    try {
      const file = await open(path, 'r');
      return file.createReadStream();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ObjectNotFoundError(key);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  /**
   * Deletes every object whose expiry (its file's modification time) has passed, and temporary files older than a
   * day (left by a crash mid-write). Resolves with the number of objects deleted.
   */
  async deleteExpired(now = Date.now()): Promise<number> {
    let deleted = 0;
    for (const name of await this.names(this.rootDir)) {
      if (name.startsWith('.')) continue;
      const path = join(this.rootDir, name);
      if (await this.olderThan(path, now)) {
        await unlink(path).catch(ignoreMissing);
        deleted++;
      }
    }
    for (const name of await this.names(join(this.rootDir, TEMP_DIR))) {
      const path = join(this.rootDir, TEMP_DIR, name);
      if (await this.olderThan(path, now - TEMP_FILE_MAX_AGE_MS)) await unlink(path).catch(ignoreMissing);
    }
    return deleted;
  }

  private pathOf(key: string): string {
    return join(this.rootDir, assertObjectKey(key));
  }

  private directories(): Promise<void> {
    this.ready ??= mkdir(join(this.rootDir, TEMP_DIR), { recursive: true }).then(
      () => undefined,
      (error: unknown) => {
        this.ready = undefined;
        throw error;
      },
    );
    return this.ready;
  }

  /** The rename is durable only once the directory's entry is. */
  private async syncDirectory(): Promise<void> {
    const directory = await open(this.rootDir, 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
  }

  private async names(directory: string): Promise<string[]> {
    try {
      return await readdir(directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  private async olderThan(path: string, time: number): Promise<boolean> {
    const info = await stat(path).catch(ignoreMissing);
    return info !== undefined && info.isFile() && info.mtimeMs <= time;
  }
}

/** A temporary file this old belongs to a write that crashed: no write takes a day. */
const TEMP_FILE_MAX_AGE_MS = 24 * 60 * 60 * 1000;

function ignoreMissing(error: unknown): undefined {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  throw error;
}

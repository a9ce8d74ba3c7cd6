import { constants, promises as fs } from 'node:fs';
import { StorageError } from './storage.errors';

const FILE_MODE = 0o644;

/**
 * A positional-I/O file with a tracked end. Every write goes through `writeAt`, every durability point through
 * `sync`, so the rest of the engine has exactly one place where bytes reach the disk.
 */
export class FileHandle {
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly handle: fs.FileHandle,
    private end: number,
  ) {}

  /** Opens (creating when `create` is set) a file for reading and writing. */
  static async open(path: string, create: boolean): Promise<FileHandle> {
    const flags = constants.O_RDWR | (create ? constants.O_CREAT : 0);
    try {
      const handle = await fs.open(path, flags, FILE_MODE);
      const { size } = await handle.stat();
      return new FileHandle(path, handle, size);
    } catch (cause) {
      throw new StorageError(`Cannot open ${path}`, { cause });
    }
  }

  /** Bytes in the file as far as this handle knows (it is the only writer). */
  get size(): number {
    return this.end;
  }

  /** Appends the whole buffer, looping over short writes. Not durable until `sync`. */
  async append(bytes: Buffer): Promise<void> {
    await this.writeAt(bytes, this.end);
    this.end += bytes.length;
  }

  /** Writes the whole buffer at `position`, looping over short writes. */
  async writeAt(bytes: Buffer, position: number): Promise<void> {
    let written = 0;
    while (written < bytes.length) {
      const { bytesWritten } = await this.handle.write(bytes, written, bytes.length - written, position + written);
      if (bytesWritten === 0) throw new StorageError(`Short write to ${this.path} at ${position + written}`);
      written += bytesWritten;
    }
  }

  /** Reads exactly `length` bytes at `position`, or fails: a short read means the file is not what the index says. */
  async read(position: number, length: number): Promise<Buffer> {
    const bytes = Buffer.allocUnsafe(length);
    let read = 0;
    while (read < length) {
      const { bytesRead } = await this.handle.read(bytes, read, length - read, position + read);
      if (bytesRead === 0) throw new StorageError(`Unexpected end of ${this.path} at ${position + read}`);
      read += bytesRead;
    }
    return bytes;
  }

  async readAll(): Promise<Buffer> {
    return this.end === 0 ? Buffer.alloc(0) : this.read(0, this.end);
  }

  /** Makes written bytes and the file size durable (fdatasync also flushes the size). */
  async sync(): Promise<void> {
    await this.handle.datasync();
  }

  async truncate(length: number): Promise<void> {
    await this.handle.truncate(length);
    this.end = length;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }
}

/** fsyncs a directory so a file created, renamed or removed in it survives a power loss. */
export async function syncDirectory(path: string): Promise<void> {
  const dir = await fs.open(path, 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

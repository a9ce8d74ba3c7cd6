import * as fsCallbacks from 'node:fs';
import { closeSync, constants, fdatasyncSync, promises as fs, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { backgroundSyncs } from './background-syncs';
import { descriptorPool, DescriptorPool, PooledFile } from './descriptor-pool';
import { RetryableStorageError, StorageError } from './storage.errors';

const FILE_MODE = 0o644;

/** Every fsync and fdatasync the storage layer made in this process (files and directories). */
let fsyncsInProcess = 0;

/** How many fsyncs the storage layer made in this process so far. */
export function fsyncCount(): number {
  return fsyncsInProcess;
}
/** Writes up to this size are copied into the page cache on the event loop; larger ones on libuv's thread pool. */
const SYNCHRONOUS_WRITE_MAX_BYTES = 64 * 1024;

/**
 * Errors of an `open` (or a write that never reached the page cache) that go away by themselves: descriptors or
 * space run out for a while. Retrying such an operation is safe, unlike retrying a failed fsync.
 */
export const RETRYABLE_IO_CODES: ReadonlySet<string> = new Set(['EMFILE', 'ENFILE', 'ENOSPC', 'EDQUOT', 'EAGAIN', 'ENOMEM']);

/** Wraps a failed open (or write) as retryable when its code says it may succeed later. */
export function openFailure(message: string, cause: unknown): StorageError {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && RETRYABLE_IO_CODES.has(code)
    ? new RetryableStorageError(message, { cause })
    : new StorageError(message, { cause });
}

// Called through the module object (not destructured), so a test can make one of them fail with jest.spyOn.
function openFd(path: string, flags: number): Promise<number> {
  return new Promise((resolve, reject) => fsCallbacks.open(path, flags, FILE_MODE, (error, fd) => (error ? reject(error) : resolve(fd))));
}

function sizeOf(fd: number): Promise<number> {
  return new Promise((resolve, reject) => fsCallbacks.fstat(fd, (error, stats) => (error ? reject(error) : resolve(stats.size))));
}

function readFd(fd: number, bytes: Buffer, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) =>
    fsCallbacks.read(fd, bytes, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))),
  );
}

function writeFd(fd: number, bytes: Buffer, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) =>
    fsCallbacks.write(fd, bytes, offset, length, position, (error, written) => (error ? reject(error) : resolve(written))),
  );
}

function fdatasyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsCallbacks.fdatasync(fd, (error) => (error ? reject(error) : resolve())));
}

/**
 * Fault-injection hook, for the fault suite only (`fault/src/scenarios/fsync-eio.ts`): makes the storage layer's file
 * fsyncs fail with EIO without a faulty disk. Read once when this module loads; unset (always, outside that suite),
 * the two sync functions below are the plain ones and nothing is checked per call.
 *
 * - `MMMQ_FAULT_FSYNC_EIO_AFTER=N`: the first N fsyncs of matching files succeed, the following ones fail with EIO
 *   (without syncing anything, as a disk that lost the pages would);
 * - `MMMQ_FAULT_FSYNC_EIO_COUNT=M`: only M of them fail, the rest succeed again (default: every one after N);
 * - `MMMQ_FAULT_FSYNC_EIO_PATH=text`: only files whose path contains `text` count and fail (default: every file).
 *
 * Covers `FileHandle.sync` (journal and topic files, checkpoints) and the fsync before the descriptor pool closes a
 * dirty file; directory fsyncs are not touched.
 */
export const FAULT_FSYNC_EIO_VARIABLES = {
  after: 'MMMQ_FAULT_FSYNC_EIO_AFTER',
  count: 'MMMQ_FAULT_FSYNC_EIO_COUNT',
  path: 'MMMQ_FAULT_FSYNC_EIO_PATH',
} as const;

type SyncOnLoop = (fd: number, path: string) => void;
type SyncInPool = (fd: number, path: string) => Promise<void>;

/** The fsync functions the storage layer uses: the plain ones, or ones failing as `env` says (see above). */
export function fsyncFunctions(env: NodeJS.ProcessEnv): { onLoop: SyncOnLoop; inPool: SyncInPool } {
  const plain = { onLoop: (fd: number) => fdatasyncSync(fd), inPool: (fd: number) => fdatasyncFd(fd) };
  const afterText = env[FAULT_FSYNC_EIO_VARIABLES.after];
  if (afterText === undefined || afterText === '') return plain;
  const after = Number(afterText);
  const countText = env[FAULT_FSYNC_EIO_VARIABLES.count];
  const count = countText === undefined || countText === '' ? Infinity : Number(countText);
  if (!Number.isSafeInteger(after) || after < 0 || !(Number.isSafeInteger(count) || count === Infinity) || count < 0) {
    throw new Error(
      `${FAULT_FSYNC_EIO_VARIABLES.after} and ${FAULT_FSYNC_EIO_VARIABLES.count} must be non-negative integers, got ` +
        `${JSON.stringify(afterText)} and ${JSON.stringify(countText)}`,
    );
  }
  const pathPart = env[FAULT_FSYNC_EIO_VARIABLES.path] ?? '';
  let seen = 0;
  const injected = (path: string): NodeJS.ErrnoException | undefined => {
    if (!path.includes(pathPart)) return undefined;
    seen++;
    if (seen <= after || seen > after + count) return undefined;
    const error: NodeJS.ErrnoException = new Error(`EIO: i/o error, fdatasync (injected by ${FAULT_FSYNC_EIO_VARIABLES.after})`);
    error.code = 'EIO';
    error.errno = -5;
    error.syscall = 'fdatasync';
    return error;
  };
  process.emitWarning(
    `fsync fault injection is on (${FAULT_FSYNC_EIO_VARIABLES.after}=${after}, ${FAULT_FSYNC_EIO_VARIABLES.count}=${count}, ` +
      `${FAULT_FSYNC_EIO_VARIABLES.path}=${JSON.stringify(pathPart)}): a test hook, never for production`,
  );
  return {
    onLoop: (fd, path) => {
      const error = injected(path);
      if (error) throw error;
      fdatasyncSync(fd);
    },
    inPool: (fd, path) => {
      const error = injected(path);
      return error ? Promise.reject(error) : fdatasyncFd(fd);
    },
  };
}

const fsyncs = fsyncFunctions(process.env);

function ftruncateFd(fd: number, length: number): Promise<void> {
  return new Promise((resolve, reject) => fsCallbacks.ftruncate(fd, length, (error) => (error ? reject(error) : resolve())));
}

/**
 * A positional-I/O file with a tracked end. Every write goes through `writeAt`, every durability point through
 * `sync`, so the rest of the engine has exactly one place where bytes reach the disk.
 *
 * Its descriptor is one of the {@link DescriptorPool}'s budget: while the file is idle the pool may close it (after
 * an fsync when it holds unsynced writes) and the next operation reopens it. Writes are positional and the end is
 * tracked here, so a reopened file resumes exactly where it was. An operation in flight pins the descriptor.
 */
export class FileHandle implements PooledFile {
  lruOlder?: PooledFile;
  lruNewer?: PooledFile;
  inLru = false;
  usedInSweep = 0;
  pins = 0;
  evicting = false;
  private closed = false;
  /** Writes and truncations made, and how many of them the last successful fsync covered. */
  private writes = 0;
  private syncedWrites = 0;
  /** An fsync that failed when the pool closed the file: every later `sync` fails with it (never retried-and-acked). */
  private lostSync?: unknown;
  /** A `syncBehind` fsync runs. */
  private syncingBehind = false;
  private reopening?: Promise<number>;

  private constructor(
    readonly path: string,
    /** How the file is reopened: never with O_CREAT, so a file removed meanwhile is not silently recreated empty. */
    private readonly flags: number,
    private fd: number,
    private end: number,
    private readonly pool: DescriptorPool,
  ) {
    pool.touch(this);
    // Opened while others waited for a descriptor: this idle file is one they may close.
    pool.unpinned();
  }

  /** Opens (creating when `create` is set) a file for reading and writing. */
  static async open(path: string, create: boolean, pool: DescriptorPool = descriptorPool): Promise<FileHandle> {
    return FileHandle.openWith(path, constants.O_RDWR, create, pool);
  }

  /** Opens an existing file for reading only: every write through the handle fails, so a check can change nothing. */
  static async openReadOnly(path: string, pool: DescriptorPool = descriptorPool): Promise<FileHandle> {
    return FileHandle.openWith(path, constants.O_RDONLY, false, pool);
  }

  private static async openWith(path: string, flags: number, create: boolean, pool: DescriptorPool): Promise<FileHandle> {
    await pool.reserve();
    let fd: number;
    try {
      fd = await openFd(path, flags | (create ? constants.O_CREAT : 0));
    } catch (cause) {
      pool.release();
      throw openFailure(`Cannot open ${path}`, cause);
    }
    try {
      return new FileHandle(path, flags, fd, await sizeOf(fd), pool);
    } catch (cause) {
      closeSync(fd);
      pool.release();
      throw new StorageError(`Cannot open ${path}`, { cause });
    }
  }

  /** Bytes in the file as far as this handle knows (it is the only writer). */
  get size(): number {
    return this.end;
  }

  /** Written since its last successful fsync. */
  get dirty(): boolean {
    return this.writes !== this.syncedWrites;
  }

  /** Whether the descriptor is open now (the pool may have closed it while idle). */
  get isOpen(): boolean {
    return this.fd >= 0;
  }

  /** Appends the whole buffer, looping over short writes. Not durable until `sync`. */
  async append(bytes: Buffer): Promise<void> {
    await this.writeAt(bytes, this.end);
  }

  /**
   * Writes the whole buffer at `position`, looping over short writes. A write only copies into the page cache (the
   * fsync after it is what waits for the disk), so a small one is done synchronously: a round trip through libuv's
   * thread pool costs more than the copy (a first-design commit's two writes + two fsyncs took 0.90 ms that way instead of
   * 0.65 ms, p50, 1 KiB, on the 2-core test machine). A large one still goes to the pool, where copying it does
   * not hold up the event loop. A small write to an open file makes no call besides the write itself.
   */
  async writeAt(bytes: Buffer, position: number): Promise<void> {
    if (this.fd >= 0 && bytes.length <= SYNCHRONOUS_WRITE_MAX_BYTES) {
      this.pool.touch(this);
      this.writes++;
      this.writeSynchronously(this.fd, bytes, position);
      return;
    }
    const fd = await this.acquire();
    this.writes++;
    try {
      if (bytes.length <= SYNCHRONOUS_WRITE_MAX_BYTES) return this.writeSynchronously(fd, bytes, position);
      let written = 0;
      while (written < bytes.length) {
        const bytesWritten = await writeFd(fd, bytes, written, bytes.length - written, position + written);
        if (bytesWritten === 0) throw new StorageError(`Short write to ${this.path} at ${position + written}`);
        written += bytesWritten;
      }
      this.end = Math.max(this.end, position + bytes.length);
    } finally {
      this.unpin();
    }
  }

  private writeSynchronously(fd: number, bytes: Buffer, position: number): void {
    let written = 0;
    while (written < bytes.length) {
      const bytesWritten = writeSync(fd, bytes, written, bytes.length - written, position + written);
      if (bytesWritten === 0) throw new StorageError(`Short write to ${this.path} at ${position + written}`);
      written += bytesWritten;
    }
    this.end = Math.max(this.end, position + bytes.length);
  }

  /** Reads exactly `length` bytes at `position`, or fails: a short read means the file is not what the index says. */
  async read(position: number, length: number): Promise<Buffer> {
    const bytes = Buffer.allocUnsafe(length);
    const fd = await this.acquire();
    try {
      let read = 0;
      while (read < length) {
        const bytesRead = await readFd(fd, bytes, read, length - read, position + read);
        if (bytesRead === 0) throw new StorageError(`Unexpected end of ${this.path} at ${position + read}`);
        read += bytesRead;
      }
      return bytes;
    } finally {
      this.unpin();
    }
  }

  async readAll(): Promise<Buffer> {
    return this.end === 0 ? Buffer.alloc(0) : this.read(0, this.end);
  }

  /**
   * Makes written bytes and the file size durable (fdatasync also flushes the size). `onEventLoop` waits for the
   * disk without libuv's thread pool: for a commit with nothing to overlap, the pool's round trip costs more than
   * the wait (one-at-a-time publishes: 1,836/s instead of 1,589/s, fsync p50 210 instead of 247 µs, on the test
   * machine).
   */
  async sync(onEventLoop = false): Promise<void> {
    if (this.lostSync !== undefined) {
      throw new StorageError(`An earlier fsync of ${this.path} failed (behind its writes, or when its descriptor was closed to free one)`, {
        cause: this.lostSync,
      });
    }
    const covered = this.writes;
    fsyncsInProcess++;
    if (onEventLoop && this.fd >= 0) {
      this.pool.touch(this);
      fsyncs.onLoop(this.fd, this.path);
    } else {
      const fd = await this.acquire();
      try {
        await fsyncs.inPool(fd, this.path);
      } finally {
        this.unpin();
      }
    }
    if (covered > this.syncedWrites) this.syncedWrites = covered;
  }

  /**
   * Starts an fsync of what was written so far on the thread pool and returns at once: writeback in steps, so the
   * flush that must make the file durable later finds little left to write (see `SegmentFile`). It waits its turn
   * among the background fsyncs (`BackgroundSyncs`), so many topics crossing the mark at once never fill the pool. Its failure is kept
   * for the next `sync`, which then fails with it: after a failed fsync the kernel may have dropped the pages, and a
   * later fsync could succeed without them.
   */
  syncBehind(): void {
    if (this.syncingBehind || this.lostSync !== undefined) return;
    this.syncingBehind = true;
    const covered = this.writes;
    void backgroundSyncs
      .run(async () => {
        const fd = await this.acquire();
        try {
          fsyncsInProcess++;
          await fsyncs.inPool(fd, this.path);
          if (covered > this.syncedWrites) this.syncedWrites = covered;
        } finally {
          this.unpin();
        }
      })
      .catch((cause: unknown) => {
        if (!this.closed) this.lostSync ??= cause;
      })
      .finally(() => (this.syncingBehind = false));
  }

  async truncate(length: number): Promise<void> {
    const fd = await this.acquire();
    this.writes++;
    try {
      await ftruncateFd(fd, length);
      this.end = length;
    } finally {
      this.unpin();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.reopening?.catch(() => undefined);
    if (this.fd < 0) return;
    const fd = this.fd;
    this.fd = -1;
    this.pool.forget(this);
    try {
      closeSync(fd);
    } finally {
      this.pool.release();
    }
  }

  /**
   * Called by the pool to free this file's descriptor while it is idle. A clean file closes at once; a dirty one is
   * fdatasync'd first, so a write error is reported to this handle (its next `sync` fails with it) rather than lost
   * with the descriptor. It stays open if it was used while that fsync ran.
   */
  evict(): boolean | Promise<boolean> {
    if (!this.dirty) {
      this.closeIdle();
      return true;
    }
    this.evicting = true;
    const fd = this.fd;
    const covered = this.writes;
    fsyncsInProcess++;
    return fsyncs.inPool(fd, this.path).then(
      () => {
        if (covered > this.syncedWrites) this.syncedWrites = covered;
        return this.finishEviction(fd, covered);
      },
      (cause: unknown) => {
        this.lostSync ??= cause;
        return this.finishEviction(fd, covered);
      },
    );
  }

  private finishEviction(fd: number, covered: number): boolean {
    this.evicting = false;
    if (this.fd !== fd || this.closed) return false;
    if (this.pins > 0 || this.writes !== covered) return false;
    this.closeIdle();
    return true;
  }

  private closeIdle(): void {
    const fd = this.fd;
    this.fd = -1;
    this.pool.forget(this);
    try {
      closeSync(fd);
    } catch {
      // The descriptor is released whatever close says; an unsynced write error was taken by the fsync before.
    } finally {
      this.pool.release();
    }
  }

  /** The open descriptor, pinned (reopened first if the pool closed it); `unpin` when the operation ends. */
  private async acquire(): Promise<number> {
    if (this.fd < 0) {
      if (this.closed) throw new StorageError(`${this.path} is closed`);
      if (this.reopening) {
        // Another operation is reopening the file: wait for it, then pin as usual (if it is still open).
        await this.reopening.catch(() => undefined);
        return this.acquire();
      }
      const reopening = this.reopen();
      this.reopening = reopening;
      try {
        return await reopening; // pinned by reopen
      } finally {
        this.reopening = undefined;
      }
    }
    this.pins++;
    this.pool.touch(this);
    return this.fd;
  }

  private unpin(): void {
    this.pins--;
    if (this.pins === 0) this.pool.unpinned();
  }

  private async reopen(): Promise<number> {
    await this.pool.reserve();
    let fd: number;
    try {
      fd = await openFd(this.path, this.flags);
    } catch (cause) {
      this.pool.release();
      throw openFailure(`Cannot reopen ${this.path}`, cause);
    }
    if (this.closed) {
      closeSync(fd);
      this.pool.release();
      throw new StorageError(`${this.path} is closed`);
    }
    this.fd = fd;
    this.pool.reopens++;
    // Pinned at once: the caller's operation follows, and nothing may close the file before it runs.
    this.pins++;
    this.pool.touch(this);
    return fd;
  }
}

/** fsyncs a directory so a file created, renamed or removed in it survives a power loss. */
export async function syncDirectory(path: string): Promise<void> {
  await descriptorPool.withDescriptor(async () => {
    let dir: fs.FileHandle;
    try {
      dir = await fs.open(path, 'r');
    } catch (cause) {
      throw openFailure(`Cannot open the directory ${path} to fsync it`, cause);
    }
    try {
      fsyncsInProcess++;
      await dir.sync();
    } finally {
      await dir.close();
    }
  });
}

/**
 * Creates `path` and any missing parents, and fsyncs every directory that got a new entry, so the new directories
 * survive a power loss. Returns whether anything was created.
 */
export async function createDirectoryDurably(path: string): Promise<boolean> {
  const first = await fs.mkdir(path, { recursive: true });
  if (first === undefined) return false;
  for (let dir = path; ; dir = dirname(dir)) {
    await syncDirectory(dirname(dir));
    if (dir === first) return true;
  }
}

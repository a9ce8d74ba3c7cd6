import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * How the loop's file takes its writes. `preallocated`: into blocks written and made durable beforehand, so an
 * fdatasync has only the data to commit — the disk's physical limit, and what MMMQ's journal does (it preallocates its
 * files). `append`: growing the file, so each fdatasync also commits the new size through the file system's journal.
 */
export type FdatasyncLoopKind = 'preallocated' | 'append';

/**
 * A file taking one durable write at a time: each `write` puts its bytes at the next offset and `fdatasync`s them,
 * synchronously (no event loop, no batching, no thread pool). `preallocated` files are filled and synced `capacity`
 * bytes at a time beforehand, and again whenever the writes reach the end.
 */
export class FdatasyncFile {
  private readonly fd: number;
  private offset = 0;
  private allocated = 0;

  constructor(
    private readonly file: string,
    private readonly kind: FdatasyncLoopKind,
    private readonly capacity: number,
  ) {
    this.fd = openSync(file, 'w');
    this.allocate();
  }

  write(bytes: Buffer): void {
    if (this.kind === 'preallocated' && this.offset + bytes.length > this.allocated) this.allocate();
    writeSync(this.fd, bytes, 0, bytes.length, this.offset);
    fdatasyncSync(this.fd);
    this.offset += bytes.length;
  }

  /** Closes and removes the file. */
  close(): void {
    closeSync(this.fd);
    rmSync(this.file, { force: true });
  }

  private allocate(): void {
    if (this.kind !== 'preallocated') return;
    const blocks = Buffer.alloc(this.capacity);
    writeSync(this.fd, blocks, 0, blocks.length, this.allocated);
    fdatasyncSync(this.fd);
    this.allocated += this.capacity;
  }
}

/**
 * One-at-a-time durable writes with nothing else: `count` times, write `size` bytes at the next offset of a file in
 * `dir` and `fdatasync` it, one after another. The embedded workload compares MMMQ's one-at-a-time confirmed produce
 * with it, in the broker's own data dir. Returns writes per second; the file is removed afterwards.
 */
export function fdatasyncLoop(dir: string, count: number, size: number, kind: FdatasyncLoopKind): number {
  const record = Buffer.alloc(size, 'x');
  const file = new FdatasyncFile(path.join(dir, `bench-fdatasync-loop-${kind}.bin`), kind, count * size);
  try {
    const start = performance.now();
    for (let i = 0; i < count; i++) file.write(record);
    return count / ((performance.now() - start) / 1000);
  } finally {
    file.close();
  }
}

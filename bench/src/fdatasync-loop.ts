import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * How the loop's file takes its writes. `preallocated`: into blocks written and made durable beforehand, so an
 * fdatasync has only the data to commit — the disk's physical limit, and what MMMQ's journal does (it preallocates its
 * files). `append`: growing the file, so each fdatasync also commits the new size through the file system's journal.
 */
export type FdatasyncLoopKind = 'preallocated' | 'append';

/**
 * One-at-a-time durable writes with nothing else: `count` times, write `size` bytes at the next offset of a file in
 * `dir` and `fdatasync` it, one after another (synchronous: no event loop, no batching, no thread pool). The embedded
 * workload compares MMMQ's one-at-a-time confirmed produce with it, in the broker's own data dir. Returns writes per
 * second; the file is removed afterwards.
 */
export function fdatasyncLoop(dir: string, count: number, size: number, kind: FdatasyncLoopKind): number {
  const file = path.join(dir, `bench-fdatasync-loop-${kind}.bin`);
  const record = Buffer.alloc(size, 'x');
  const fd = openSync(file, 'w');
  try {
    if (kind === 'preallocated') {
      const blocks = Buffer.alloc(count * size);
      writeSync(fd, blocks, 0, blocks.length, 0);
      fdatasyncSync(fd);
    }
    const start = performance.now();
    for (let i = 0; i < count; i++) {
      writeSync(fd, record, 0, size, i * size);
      fdatasyncSync(fd);
    }
    return count / ((performance.now() - start) / 1000);
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
}

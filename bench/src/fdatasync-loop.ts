import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * The physical limit of one-at-a-time durable writes on a disk: `count` times, append `size` bytes to a file in `dir`
 * and `fdatasync` it, one after another, nothing else (synchronous: no event loop, no batching). The embedded
 * workload compares MMMQ's one-at-a-time confirmed produce with it, in the broker's own data dir. Returns
 * writes per second; the file is removed afterwards.
 */
export function fdatasyncLoop(dir: string, count: number, size: number): number {
  const file = path.join(dir, 'bench-fdatasync-loop.bin');
  const record = Buffer.alloc(size, 'x');
  const fd = openSync(file, 'w');
  try {
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

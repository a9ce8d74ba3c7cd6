import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Keeps `dest` a copy of `src`: each `sync()` copies only the files whose inode, size, modification or change
 * time differ from when they were last copied (closed segments never change, so copying a growing data root before
 * every start stays cheap) and removes what `src` no longer has.
 */
export class DirMirror {
  /** Source path → stamp of the version copied. */
  private readonly copied = new Map<string, string>();

  constructor(
    private readonly src: string,
    private readonly dest: string,
  ) {}

  sync(): void {
    this.mirror(this.src, this.dest);
  }

  private mirror(src: string, dest: string): void {
    mkdirSync(dest, { recursive: true });
    const names = new Set(readdirSync(src));
    for (const name of readdirSync(dest)) {
      if (names.has(name)) continue;
      rmSync(join(dest, name), { recursive: true, force: true });
      this.copied.delete(join(src, name));
    }
    for (const name of names) {
      const from = join(src, name);
      const to = join(dest, name);
      const stat = statSync(from);
      if (stat.isDirectory()) {
        this.mirror(from, to);
        continue;
      }
      const stamp = `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
      if (this.copied.get(from) === stamp) continue;
      copyFileSync(from, to);
      this.copied.set(from, stamp);
    }
  }
}

import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Path (relative to the root) → size and content hash, or "dir" / "link". */
export type TreeSnapshot = Map<string, string>;

/** Every file and directory under `root`, skipping the directories in `skip`. */
export function snapshotTree(root: string, skip: readonly string[] = []): TreeSnapshot {
  const snapshot: TreeSnapshot = new Map();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (skip.includes(path)) continue;
      const stat = lstatSync(path);
      const key = relative(root, path);
      if (stat.isDirectory()) {
        snapshot.set(key, 'dir');
        walk(path);
      } else if (stat.isSymbolicLink()) {
        snapshot.set(key, 'link');
      } else {
        snapshot.set(key, `${stat.size}:${createHash('sha1').update(readFileSync(path)).digest('hex')}`);
      }
    }
  };
  walk(root);
  return snapshot;
}

/** What differs between two snapshots, as readable lines. */
export function treeChanges(before: TreeSnapshot, after: TreeSnapshot): string[] {
  const changes: string[] = [];
  for (const [path, value] of after) {
    if (!before.has(path)) changes.push(`created ${path}`);
    else if (before.get(path) !== value) changes.push(`changed ${path}`);
  }
  for (const path of before.keys()) if (!after.has(path)) changes.push(`deleted ${path}`);
  return changes;
}

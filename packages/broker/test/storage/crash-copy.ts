import { cpSync, openSync, closeSync, readdirSync, readFileSync, statSync, writeSync, ftruncateSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { IoSpy } from './io-spy';

/** A copy of a broker's data directory taken at one instant: what the disk and page cache held then. */
export interface Crash {
  /** The copy. */
  dir: string;
  /** The directory it was copied from (the durable sizes are keyed by its paths). */
  source: string;
  /** Durable size of every file of the source at that instant (see IoSpy). */
  durableSizes: Map<string, number>;
}

/**
 * Copies `source` to `target` synchronously, so nothing else runs meanwhile: called from inside a spy, the copy is
 * the state of the files at that exact point of the code (a SIGKILL there).
 */
export function crashCopy(source: string, target: string, spy: IoSpy): Crash {
  cpSync(source, target, { recursive: true });
  return { dir: target, source, durableSizes: new Map(spy.durableSizes) };
}

/** What a power loss does to the bytes past a file's last fsync: gone, zeros, or whatever the disk held. */
export type LostTail = 'cut' | 'zeros' | 'garbage';

/** Topic data and index files: what a flush makes durable. */
export const TOPIC_FILES = /\.(mmm|idx)$/;
export const JOURNAL_FILES = /\.journal$/;

/**
 * Simulates a power loss on the crash copy: every file whose name matches `files` loses what its last completed
 * fsync did not cover (cut off, or overwritten in place with zeros or garbage). Returns the files it changed.
 */
export function losePower(crash: Crash, lostTail: LostTail, files: RegExp = TOPIC_FILES): string[] {
  const changed: string[] = [];
  for (const path of listFiles(crash.dir)) {
    if (!files.test(path)) continue;
    const durable = crash.durableSizes.get(join(crash.source, relative(crash.dir, path))) ?? 0;
    const size = statSync(path).size;
    if (size <= durable) continue;
    const fd = openSync(path, 'r+');
    try {
      if (lostTail === 'cut') ftruncateSync(fd, durable);
      else writeSync(fd, lostBytes(size - durable, lostTail), 0, size - durable, durable);
    } finally {
      closeSync(fd);
    }
    changed.push(relative(crash.dir, path));
  }
  return changed.sort();
}

/** Zeros, or a fixed pseudo-random pattern (deterministic, so a failure reproduces). */
function lostBytes(length: number, kind: 'zeros' | 'garbage'): Buffer {
  const bytes = Buffer.alloc(length);
  if (kind === 'garbage') {
    let state = 0x9e3779b9;
    for (let i = 0; i < length; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      bytes[i] = state >>> 24;
    }
  }
  return bytes;
}

/** Every regular file under `dir`, recursively. */
export function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** The bytes of every file under `dir` matching `files`, by relative path: to compare two states of a directory. */
export function fileContents(dir: string, files: RegExp): Record<string, string> {
  const contents: Record<string, string> = {};
  for (const path of listFiles(dir)) if (files.test(path)) contents[relative(dir, path)] = readFileSync(path).toString('hex');
  return contents;
}

/** Another copy of a crash, to try one more way of recovering it. */
export function copyCrash(crash: Crash, target: string): Crash {
  cpSync(crash.dir, target, { recursive: true });
  return { ...crash, dir: target };
}

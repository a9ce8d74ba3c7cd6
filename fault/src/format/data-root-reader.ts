import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { decodeIndex, parseSegmentFileName, readFrameAt, segmentFileName } from './segment-format';

/** One offset of a topic as the files hold it: the payload, or why it cannot be read. */
export type StoredEntry = { offset: number; payload: Buffer } | { offset: number; damage: string };

/**
 * Decoded segments by path, reused while neither file changed (size, mtime, inode): a crash loop re-reads the
 * whole log after every restart, and closed segments never change.
 */
export class SegmentCache {
  private readonly segments = new Map<string, { stamp: string; segment: StoredSegment; entries: StoredEntry[] }>();

  lookup(dataPath: string, stamp: string): { segment: StoredSegment; entries: StoredEntry[] } | undefined {
    const cached = this.segments.get(dataPath);
    return cached?.stamp === stamp ? cached : undefined;
  }

  store(dataPath: string, stamp: string, segment: StoredSegment, entries: StoredEntry[]): void {
    this.segments.set(dataPath, { stamp, segment, entries });
  }
}

export interface StoredSegment {
  startOffset: number;
  dataPath: string;
  indexPath: string;
  dataBytes: number;
  indexBytes: number;
  /** Addresses of whole index entries. */
  addresses: number[];
}

/** A topic's log as read straight from its files, through the index, like a reader after recovery would. */
export interface StoredTopic {
  name: string;
  dir: string;
  segments: StoredSegment[];
  /** Offset → entry, for every offset some index entry covers. */
  entries: Map<number, StoredEntry>;
  /** One past the last indexed offset. */
  tailOffset: number;
}

export const TOPICS_DIR = 'topics';

/** Reads every topic directory under `{rootDir}/topics` (valid names or not). */
export function readDataRoot(rootDir: string, cache?: SegmentCache): Map<string, StoredTopic> {
  const topicsDir = join(rootDir, TOPICS_DIR);
  const topics = new Map<string, StoredTopic>();
  if (!existsSync(topicsDir)) return topics;
  for (const name of readdirSync(topicsDir)) {
    const dir = join(topicsDir, name);
    if (statSync(dir).isDirectory()) topics.set(name, readTopic(name, dir, cache));
  }
  return topics;
}

export function readTopic(name: string, dir: string, cache?: SegmentCache): StoredTopic {
  const starts = [
    ...new Set(
      readdirSync(dir)
        .map(parseSegmentFileName)
        .filter((parsed) => parsed !== undefined)
        .map((parsed) => parsed.startOffset),
    ),
  ].sort((a, b) => a - b);
  const segments: StoredSegment[] = [];
  const entries = new Map<number, StoredEntry>();
  let tailOffset = 0;
  for (const startOffset of starts) {
    const dataPath = join(dir, segmentFileName(startOffset, 'mmm'));
    const indexPath = join(dir, segmentFileName(startOffset, 'idx'));
    const stamp = `${fileStamp(dataPath)}/${fileStamp(indexPath)}`;
    const read = cache?.lookup(dataPath, stamp) ?? readSegment(startOffset, dataPath, indexPath);
    cache?.store(dataPath, stamp, read.segment, read.entries);
    segments.push(read.segment);
    for (const entry of read.entries) entries.set(entry.offset, entry);
    tailOffset = Math.max(tailOffset, startOffset + read.segment.addresses.length);
  }
  return { name, dir, segments, entries, tailOffset };
}

function readSegment(startOffset: number, dataPath: string, indexPath: string): { segment: StoredSegment; entries: StoredEntry[] } {
  const data = existsSync(dataPath) ? readFileSync(dataPath) : Buffer.alloc(0);
  const index = existsSync(indexPath) ? readFileSync(indexPath) : Buffer.alloc(0);
  const addresses = decodeIndex(index);
  const segment = { startOffset, dataPath, indexPath, dataBytes: data.length, indexBytes: index.length, addresses };
  const entries = addresses.map((address, i): StoredEntry => {
    const offset = startOffset + i;
    const next = addresses[i + 1];
    const frame = readFrameAt(data, address);
    if (frame.kind === 'bad-length') return { offset, damage: `bad frame length at byte ${address}` };
    if (frame.kind === 'bad-checksum') return { offset, damage: `CRC mismatch at byte ${address}` };
    if (next !== undefined && next !== address + frame.size) {
      return { offset, damage: `frame at ${address} ends at ${address + frame.size}, next entry at ${next}` };
    }
    return { offset, payload: frame.payload };
  });
  return { segment, entries };
}

function fileStamp(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

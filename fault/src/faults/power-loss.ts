import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { readDataRoot, StoredSegment } from '../format/data-root-reader';
import { encodeIndexEntry, INDEX_ENTRY_BYTES, readFrameAt } from '../format/segment-format';
import type { Random } from '../random';

/** What one simulated power loss did to the files. */
export interface PowerLossCut {
  filesCut: number;
  bytesDropped: number;
  zeroFilled: number;
  garbageFilled: number;
}

type Fill = 'zero' | 'garbage' | 'addresses';

/**
 * Simulates a power loss after a SIGKILL: the tail segment of every topic loses part of what was written but not
 * yet known to be fsync'd, and the lost region may read back as zeros or garbage (a file whose size reached the
 * disk before its data, as ext4 can leave it).
 *
 * Nothing the broker acknowledged or delivered may go: `committed` gives per topic the highest offset known to
 * be fsync'd (acknowledged, or pushed to a consumer — pushes happen only after the commit). Only the last segment
 * is cut, because a segment rotates only once everything in it was committed. An index entry that survives
 * whole proves its frame was fsync'd first (the commit protocol), so the data file keeps every frame a surviving
 * index entry points to. Garbage in the index tail may point anywhere, including into the middle of a frame.
 */
export function cutUnsyncedTails(rootDir: string, committed: Map<string, number>, random: Random): PowerLossCut {
  const cut: PowerLossCut = { filesCut: 0, bytesDropped: 0, zeroFilled: 0, garbageFilled: 0 };
  for (const topic of readDataRoot(rootDir).values()) {
    const last = topic.segments[topic.segments.length - 1];
    if (!last) continue;
    const floor = committed.get(topic.name) ?? -1;
    const keepEntries = Math.min(Math.max(0, floor - last.startOffset + 1), last.addresses.length);
    const data = readFileSync(last.dataPath);
    // Garbage index entries point anywhere in the data, half of them into the frame before them (a torn entry).
    const plausible = (kept: number) => {
      const before = Math.floor(kept / INDEX_ENTRY_BYTES) - 1;
      const frame = before >= 0 ? readFrameAt(data, last.addresses[before]) : undefined;
      if (frame?.kind === 'ok' && random.chance(0.5)) return frame.address + random.int(1, frame.size - 1);
      return random.int(0, data.length);
    };
    const indexKept = cutFile(last.indexPath, last.indexBytes, keepEntries * INDEX_ENTRY_BYTES, random, plausible, cut);
    const wholeEntries = Math.floor(indexKept / INDEX_ENTRY_BYTES);
    cutFile(last.dataPath, data.length, frameEnd(last, wholeEntries, data), random, () => random.int(0, data.length), cut);
  }
  return cut;
}

/** End of the frame of the last of the first `entries` index entries (0 when none). */
function frameEnd(segment: StoredSegment, entries: number, data: Buffer): number {
  if (entries === 0) return 0;
  const address = segment.addresses[entries - 1];
  const frame = readFrameAt(data, address);
  // A frame that does not read after a mere SIGKILL is already damage; leave the whole file as it is.
  return frame.kind === 'ok' ? address + frame.size : data.length;
}

/**
 * Keeps the first `kept` bytes (at least `minimum`; half the time exactly `minimum`), then makes the file any
 * length between that and its current size, the region past `kept` zero- or garbage-filled. Returns `kept`.
 */
function cutFile(
  path: string,
  size: number,
  minimum: number,
  random: Random,
  address: (kept: number) => number,
  cut: PowerLossCut,
): number {
  if (minimum >= size) return size;
  const kept = random.chance(0.5) ? minimum : random.int(minimum, size);
  const length = random.chance(0.5) ? kept : random.int(kept, size);
  const fill: Fill = random.pick(['zero', 'garbage', 'addresses'] as const);
  const region = length - kept;
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, kept);
    if (region > 0) {
      writeSync(fd, filler(fill, kept, length, random, () => address(kept)), 0, region, kept);
      if (fill === 'zero') cut.zeroFilled++;
      else cut.garbageFilled++;
    }
  } finally {
    closeSync(fd);
  }
  cut.filesCut++;
  cut.bytesDropped += size - kept;
  return kept;
}

/**
 * The bytes of `[from, to)`: zeros, random bytes, or plausible index entries (addresses inside the data file, like
 * a torn entry's) laid on the file's 8-byte slots.
 */
function filler(fill: Fill, from: number, to: number, random: Random, address: () => number): Buffer {
  if (fill === 'zero') return Buffer.alloc(to - from);
  if (fill === 'garbage') return random.bytes(to - from);
  const firstSlot = Math.floor(from / INDEX_ENTRY_BYTES);
  const slots = Math.ceil(to / INDEX_ENTRY_BYTES) - firstSlot;
  const entries = Buffer.concat(Array.from({ length: slots }, () => encodeIndexEntry(address())));
  const skip = from - firstSlot * INDEX_ENTRY_BYTES;
  return entries.subarray(skip, skip + to - from);
}

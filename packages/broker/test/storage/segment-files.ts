import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeFrames } from '../../src/storage/entry-frame';
import { SegmentFile, segmentFileName } from '../../src/storage/segment-file';

/** Paths of the two files of segment `start` in `dir`. */
export function segmentPaths(dir: string, start = 0): { data: string; index: string } {
  return { data: join(dir, segmentFileName(start, '.mmm')), index: join(dir, segmentFileName(start, '.idx')) };
}

/** Writes a committed segment the way the engine (and the original Java broker) lays it out. */
export function writeSegment(dir: string, payloads: string[], start = 0): void {
  const { bytes, starts } = encodeFrames(payloads.map((payload) => Buffer.from(payload)));
  const index = Buffer.alloc(starts.length * 8);
  starts.forEach((address, i) => index.writeBigUInt64BE(BigInt(address), i * 8));
  const paths = segmentPaths(dir, start);
  writeFileSync(paths.data, bytes);
  writeFileSync(paths.index, index);
}

/** Opens the segment and returns every readable payload (or the error class name for an isolated entry). */
export async function readBack(dir: string, start = 0): Promise<{ entries: string[]; repairs: string[] }> {
  const { segment, repairs } = await SegmentFile.open(dir, start);
  const entries: string[] = [];
  for (let i = 0; i < segment.count; i++) {
    entries.push(await segment.read(i).then((payload) => payload.toString(), (error: Error) => error.name));
  }
  await segment.close();
  return { entries, repairs };
}

export function flipByte(path: string, position: number): void {
  const content = readFileSync(path);
  content[position] ^= 0xff;
  writeFileSync(path, content);
}

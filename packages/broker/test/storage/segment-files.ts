import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeFrames } from '../../src/storage/entry-frame';
import { SegmentFile, segmentFileName } from '../../src/storage/segment-file';
import { SegmentFileChain } from '../../src/storage/segment-file-chain';

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

/**
 * Opens the segment and returns every readable payload (or the error class name for an isolated entry). With
 * `nextStart`, the segment is opened as a closed one that another segment follows.
 */
export async function readBack(dir: string, start = 0, nextStart?: number): Promise<{ entries: string[]; repairs: string[] }> {
  const { segment, repairs } = await SegmentFile.open(dir, start, nextStart);
  const entries: string[] = [];
  for (let i = 0; i < segment.count; i++) {
    entries.push(
      await segment.read(i).then(
        (payload) => payload.toString(),
        (error: Error) => error.name,
      ),
    );
  }
  await segment.close();
  return { entries, repairs };
}

/** The addresses an `.idx` file holds, entry by entry. */
export function readIndex(path: string): number[] {
  const content = readFileSync(path);
  return Array.from({ length: Math.floor(content.length / 8) }, (_, i) => Number(content.readBigUInt64BE(i * 8)));
}

/** Overwrites index entry `entry` of the `.idx` at `path` with `address`. */
export function writeIndexEntry(path: string, entry: number, address: number): void {
  const content = readFileSync(path);
  content.writeBigUInt64BE(BigInt(address), entry * 8);
  writeFileSync(path, content);
}

/** Flips bit `bit` (0 = least significant) of the 64-bit address held by index entry `entry`. */
export function flipIndexBit(path: string, entry: number, bit: number): void {
  const content = readFileSync(path);
  content.writeBigUInt64BE(content.readBigUInt64BE(entry * 8) ^ (1n << BigInt(bit)), entry * 8);
  writeFileSync(path, content);
}

/** Flips bit `bit` (0 = least significant bit of byte 0) of the file at `path`. */
export function flipBit(path: string, bit: number): void {
  const content = readFileSync(path);
  content[bit >> 3] ^= 1 << (bit & 7);
  writeFileSync(path, content);
}

export function flipByte(path: string, position: number): void {
  const content = readFileSync(path);
  content[position] ^= 0xff;
  writeFileSync(path, content);
}

/** Writes payloads to a segment or chain and syncs it, as the journal's apply and flush do; returns the first offset. */
export async function appendEntries(target: SegmentFile | SegmentFileChain, payloads: readonly Buffer[]): Promise<number> {
  const first = target instanceof SegmentFile ? target.endOffset : target.tailOffset;
  const { bytes, starts } = encodeFrames(payloads);
  await target.write(bytes, starts);
  await target.sync();
  return first;
}

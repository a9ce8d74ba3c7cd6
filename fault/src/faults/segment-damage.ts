import { appendFileSync, closeSync, openSync, readFileSync, rmSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredSegment, StoredTopic } from '../format/data-root-reader';
import { encodeIndexEntry, FRAME_HEADER_BYTES, INDEX_ENTRY_BYTES, readFrameAt } from '../format/segment-format';
import type { Random } from '../random';

/**
 * One kind of damage to a topic's files, applied while the broker is down. `apply` returns the offsets whose
 * data bytes it changed or removed ("touched"): those may be lost or skipped; every other acknowledged entry is
 * intact and must still be served, at its offset, byte for byte.
 */
export interface SegmentDamage {
  name: string;
  describe: string;
  apply(topic: StoredTopic, random: Random): Set<number>;
}

const closed = (topic: StoredTopic): StoredSegment[] => topic.segments.slice(0, -1);
const open = (topic: StoredTopic): StoredSegment => topic.segments[topic.segments.length - 1];

/** The damages of the corruption scenario; every topic needs at least two segments with entries. */
export const SEGMENT_DAMAGES: SegmentDamage[] = [
  {
    name: 'flip-data-closed-payload',
    describe: 'one bit flipped in the payload of an entry of a closed segment',
    apply: (topic, random) => flipInFrame(random.pick(closed(topic)), random, 'payload'),
  },
  {
    name: 'flip-data-closed-header',
    describe: 'one bit flipped in the length or CRC field of an entry of a closed segment',
    apply: (topic, random) => flipInFrame(random.pick(closed(topic)), random, 'header'),
  },
  {
    name: 'flip-data-open-payload',
    describe: 'one bit flipped in the payload of an entry of the open (tail) segment',
    apply: (topic, random) => flipInFrame(open(topic), random, 'payload'),
  },
  {
    name: 'flip-data-open-last-entry',
    describe: 'one bit flipped in the last entry of the open segment',
    apply: (topic, random) => flipInFrame(open(topic), random, 'payload', open(topic).addresses.length - 1),
  },
  {
    name: 'flip-data-three-bits',
    describe: 'three random bits flipped anywhere in the data file of a closed segment',
    apply: (topic, random) => {
      const segment = random.pick(closed(topic));
      const touched = new Set<number>();
      for (let i = 0; i < 3; i++) {
        const at = random.int(0, segment.dataBytes - 1);
        flipBit(segment.dataPath, at, random.int(0, 7));
        touched.add(entryHolding(segment, at));
      }
      return touched;
    },
  },
  {
    name: 'huge-length-field-closed',
    describe: 'the length field of an entry of a closed segment overwritten with 0x7FFFFFFF',
    apply: (topic, random) => {
      const segment = random.pick(closed(topic));
      const i = random.int(0, segment.addresses.length - 1);
      overwrite(segment.dataPath, segment.addresses[i], Buffer.from([0x7f, 0xff, 0xff, 0xff]));
      return new Set([segment.startOffset + i]);
    },
  },
  {
    name: 'truncate-data-closed',
    describe: 'the data file of a closed segment cut inside one of its entries',
    apply: (topic, random) => {
      const segment = random.pick(closed(topic));
      const i = random.int(0, segment.addresses.length - 1);
      truncateSync(segment.dataPath, segment.addresses[i] + random.int(1, FRAME_HEADER_BYTES + 2));
      return offsetsFrom(segment, i);
    },
  },
  {
    name: 'flip-index-closed-small-shift',
    describe: 'one bit of the lowest byte of an index entry of a closed segment flipped: the address moves by 1–128 bytes',
    apply: (topic, random) => flipInIndex(random.pick(closed(topic)), random, LOWEST_BYTE),
  },
  {
    name: 'flip-index-closed-large-shift',
    describe: 'one bit of the second-lowest byte of an index entry of a closed segment flipped: it moves by 256 bytes–32 KiB',
    apply: (topic, random) => flipInIndex(random.pick(closed(topic)), random, SECOND_LOWEST_BYTE),
  },
  {
    name: 'flip-index-open-small-shift',
    describe: 'one bit of the lowest byte of an index entry of the open segment flipped',
    apply: (topic, random) => flipInIndex(open(topic), random, LOWEST_BYTE),
  },
  {
    name: 'flip-index-open-large-shift',
    describe: 'one bit of the second-lowest byte of an index entry of the open segment flipped',
    apply: (topic, random) => flipInIndex(open(topic), random, SECOND_LOWEST_BYTE),
  },
  {
    name: 'flip-index-open-last-entry',
    describe: 'one bit of the lowest byte of the last index entry of the open segment flipped',
    apply: (topic, random) => flipInIndex(open(topic), random, LOWEST_BYTE, open(topic).addresses.length - 1),
  },
  {
    name: 'garbage-index-closed',
    describe: 'the whole index of a closed segment overwritten with random bytes (data untouched)',
    apply: (topic, random) => {
      const segment = random.pick(closed(topic));
      writeFileSync(segment.indexPath, random.bytes(segment.indexBytes));
      return new Set();
    },
  },
  {
    name: 'torn-index-tail-open',
    describe: '1–7 random bytes appended to the index of the open segment (a torn entry)',
    apply: (topic, random) => append(open(topic).indexPath, random.bytes(random.int(1, INDEX_ENTRY_BYTES - 1))),
  },
  {
    name: 'garbage-index-tail-open',
    describe: 'index entries appended to the open segment that point into its last frame or elsewhere in the data',
    apply: (topic, random) => append(open(topic).indexPath, plausibleEntries(open(topic), random)),
  },
  {
    name: 'garbage-index-tail-closed',
    describe: 'index entries appended to a closed segment that point into its frames',
    apply: (topic, random) => {
      const segment = random.pick(closed(topic));
      return append(segment.indexPath, plausibleEntries(segment, random));
    },
  },
  {
    name: 'zero-index-tail-open',
    describe: '8 to 4096 zero bytes appended to the index of the open segment',
    apply: (topic, random) => append(open(topic).indexPath, Buffer.alloc(random.int(1, 512) * INDEX_ENTRY_BYTES)),
  },
  {
    name: 'garbage-data-tail-open',
    describe: '1–1024 random bytes appended to the data file of the open segment',
    apply: (topic, random) => append(open(topic).dataPath, random.bytes(random.int(1, 1024))),
  },
  {
    name: 'zero-data-tail-open',
    describe: '1–4096 zero bytes appended to the data file of the open segment',
    apply: (topic, random) => append(open(topic).dataPath, Buffer.alloc(random.int(1, 4096))),
  },
  {
    name: 'delete-index-closed',
    describe: 'the index file of a closed segment deleted',
    apply: (topic, random) => remove(random.pick(closed(topic)).indexPath),
  },
  {
    name: 'delete-index-open',
    describe: 'the index file of the open segment deleted',
    apply: (topic) => remove(open(topic).indexPath),
  },
  {
    name: 'foreign-files',
    describe: 'a stray file, a leftover temp file and a stray directory in the topic directory',
    apply: (topic) => {
      writeFileSync(join(topic.dir, 'notes.txt'), 'not a segment');
      writeFileSync(join(topic.dir, `${segmentBase(open(topic))}.mmm.tmp`), Buffer.alloc(100, 1));
      writeFileSync(join(topic.dir, 'checkpoints', 'stray.checkpoint.tmp'), Buffer.alloc(3));
      return new Set();
    },
  },
];

/** Damages after which the broker may refuse to start, as long as it says why; run on their own data root. */
export const DESTRUCTIVE_DAMAGES: SegmentDamage[] = [
  {
    name: 'delete-data-closed',
    describe: 'the data file of a closed segment deleted (its index kept)',
    apply: (topic, random) => {
      const segment = random.pick(closed(topic));
      remove(segment.dataPath);
      return offsetsFrom(segment, 0);
    },
  },
  {
    name: 'delete-data-open',
    describe: 'the data file of the open segment deleted (its index kept)',
    apply: (topic) => {
      remove(open(topic).dataPath);
      return offsetsFrom(open(topic), 0);
    },
  },
  {
    name: 'delete-segment-closed',
    describe: 'both files of a closed segment deleted',
    apply: (topic, random) => {
      const segment = random.pick(closed(topic));
      remove(segment.dataPath);
      remove(segment.indexPath);
      return offsetsFrom(segment, 0);
    },
  },
];

function flipInFrame(segment: StoredSegment, random: Random, part: 'payload' | 'header', entry?: number): Set<number> {
  const i = entry ?? random.int(0, segment.addresses.length - 1);
  const address = segment.addresses[i];
  const frame = readFrameAt(readFileSync(segment.dataPath), address);
  if (frame.kind !== 'ok') throw new Error(`Entry ${segment.startOffset + i} did not read before the damage`);
  const at = part === 'header' ? address + random.int(0, FRAME_HEADER_BYTES - 1) : address + random.int(FRAME_HEADER_BYTES, frame.size - 1);
  flipBit(segment.dataPath, at, random.int(0, 7));
  return new Set([segment.startOffset + i]);
}

/** Byte positions within an 8-byte big-endian index entry. */
const LOWEST_BYTE = INDEX_ENTRY_BYTES - 1;
const SECOND_LOWEST_BYTE = INDEX_ENTRY_BYTES - 2;

/**
 * Flips one bit of one byte of an index entry, so that its address moves by a little (the lowest byte) or by up to
 * 32 KiB (the second-lowest): shifts that stay near the data, unlike a flip in the high bytes, which points far
 * past it and is easy to spot.
 */
function flipInIndex(segment: StoredSegment, random: Random, byte: number, entry?: number): Set<number> {
  const i = entry ?? random.int(0, segment.addresses.length - 1);
  flipBit(segment.indexPath, i * INDEX_ENTRY_BYTES + byte, random.int(0, 7));
  return new Set();
}

/** Addresses a torn or stale index entry could hold: inside the last frame (9 bytes in), or anywhere in the data. */
function plausibleEntries(segment: StoredSegment, random: Random): Buffer {
  const last = segment.addresses[segment.addresses.length - 1];
  const entries = [encodeIndexEntry(last + FRAME_HEADER_BYTES + 1)];
  for (let i = random.int(0, 2); i > 0; i--) entries.push(encodeIndexEntry(random.int(0, segment.dataBytes + 16)));
  return Buffer.concat(entries);
}

/** The offset of the entry whose frame holds byte `at` of the data file. */
function entryHolding(segment: StoredSegment, at: number): number {
  let i = 0;
  while (i + 1 < segment.addresses.length && segment.addresses[i + 1] <= at) i++;
  return segment.startOffset + i;
}

function offsetsFrom(segment: StoredSegment, first: number): Set<number> {
  const offsets = new Set<number>();
  for (let i = first; i < segment.addresses.length; i++) offsets.add(segment.startOffset + i);
  return offsets;
}

function segmentBase(segment: StoredSegment): string {
  return String(segment.startOffset).padStart(19, '0');
}

function flipBit(path: string, at: number, bit: number): void {
  const bytes = readFileSync(path);
  bytes[at] ^= 1 << bit;
  writeFileSync(path, bytes);
}

function overwrite(path: string, at: number, bytes: Buffer): void {
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, at);
  } finally {
    closeSync(fd);
  }
}

function append(path: string, bytes: Buffer): Set<number> {
  appendFileSync(path, bytes);
  return new Set();
}

function remove(path: string): Set<number> {
  rmSync(path);
  return new Set();
}

import fc from 'fast-check';
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { encodeFrame, encodeIndexEntry, FRAME_HEADER_BYTES, INDEX_ENTRY_BYTES, segmentFileName } from '../format/segment-format';

/** A topic written by the checker's own encoder: what each offset holds and where. */
export interface BuiltTopic {
  dir: string;
  payloads: Buffer[];
  segments: Array<{ startOffset: number; dataPath: string; indexPath: string; addresses: number[]; dataBytes: number }>;
}

/** Entries per segment, and a payload size per entry. */
export const topicShape = fc.array(fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 10 }), {
  minLength: 1,
  maxLength: 4,
});

/** Writes the segments of `topic` under `{rootDir}/topics/{topic}` as docs/storage.md describes them. */
export function buildTopic(rootDir: string, topic: string, shape: number[][]): BuiltTopic {
  const dir = join(rootDir, 'topics', topic);
  mkdirSync(dir, { recursive: true });
  const payloads: Buffer[] = [];
  const segments: BuiltTopic['segments'] = [];
  let offset = 0;
  for (const sizes of shape) {
    const startOffset = offset;
    const frames: Buffer[] = [];
    const addresses: number[] = [];
    let address = 0;
    for (const size of sizes) {
      const payload = Buffer.from(
        `{"id":"e${offset}","topic":"${topic}","publishedAt":1,"headers":{},"content":{"n":${offset},"pad":"${'p'.repeat(size)}"}}`,
      );
      payloads.push(payload);
      const frame = encodeFrame(payload);
      frames.push(frame);
      addresses.push(address);
      address += frame.length;
      offset++;
    }
    const dataPath = join(dir, segmentFileName(startOffset, 'mmm'));
    const indexPath = join(dir, segmentFileName(startOffset, 'idx'));
    writeFileSync(dataPath, Buffer.concat(frames));
    writeFileSync(indexPath, Buffer.concat(addresses.map(encodeIndexEntry)));
    segments.push({ startOffset, dataPath, indexPath, addresses, dataBytes: address });
  }
  return { dir, payloads, segments };
}

/** One damage, positioned relatively so that it applies to any shape. */
export type Damage =
  | { kind: 'flip-data'; segment: number; at: number; bit: number }
  | { kind: 'flip-index'; segment: number; entry: number; bit: number }
  | { kind: 'overwrite-length'; segment: number; entry: number; value: number }
  | { kind: 'truncate-data'; segment: number; at: number }
  | { kind: 'append-index'; segment: number; bytes: Uint8Array; plausible: boolean }
  | { kind: 'append-data'; segment: number; bytes: Uint8Array; zeros: boolean }
  | { kind: 'torn-frame'; segment: number; at: number }
  | { kind: 'delete-index'; segment: number };

const where = fc.double({ min: 0, max: 0.999, noNaN: true });

export const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({ kind: fc.constant('flip-data' as const), segment: where, at: where, bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('flip-index' as const), segment: where, entry: where, bit: fc.integer({ min: 0, max: 15 }) }),
  fc.record({
    kind: fc.constant('overwrite-length' as const),
    segment: where,
    entry: where,
    value: fc.constantFrom(0, 4, 5, 0x7fffffff, 0xffffffff, 13),
  }),
  fc.record({ kind: fc.constant('truncate-data' as const), segment: where, at: where }),
  fc.record({
    kind: fc.constant('append-index' as const),
    segment: where,
    bytes: fc.uint8Array({ minLength: 1, maxLength: 24 }),
    plausible: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('append-data' as const),
    segment: where,
    bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }),
    zeros: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('torn-frame' as const), segment: where, at: where }),
  fc.record({ kind: fc.constant('delete-index' as const), segment: where }),
);

/**
 * Applies a damage and returns the offsets whose data bytes it changed or removed. Index damage, appended bytes
 * and a torn (never indexed) frame touch no entry.
 */
export function applyDamage(topic: BuiltTopic, damage: Damage): Set<number> {
  const segment = topic.segments[Math.floor(damage.segment * topic.segments.length)];
  const entryAt = (relative: number) => Math.floor(relative * segment.addresses.length);
  const holding = (byte: number) => {
    let i = 0;
    while (i + 1 < segment.addresses.length && segment.addresses[i + 1] <= byte) i++;
    return segment.startOffset + i;
  };
  switch (damage.kind) {
    case 'flip-data': {
      const at = Math.floor(damage.at * segment.dataBytes);
      flip(segment.dataPath, at, damage.bit);
      return new Set([holding(at)]);
    }
    case 'flip-index': {
      const entry = entryAt(damage.entry);
      flip(segment.indexPath, entry * INDEX_ENTRY_BYTES + (damage.bit < 8 ? 7 : 6), damage.bit % 8);
      return new Set();
    }
    case 'overwrite-length': {
      const entry = entryAt(damage.entry);
      const bytes = Buffer.alloc(4);
      bytes.writeUInt32BE(damage.value);
      write(segment.dataPath, segment.addresses[entry], bytes);
      return new Set([segment.startOffset + entry]);
    }
    case 'truncate-data': {
      const at = Math.floor(damage.at * segment.dataBytes);
      if (existsSync(segment.dataPath) && statSync(segment.dataPath).size > at) truncateSync(segment.dataPath, at);
      const touched = new Set<number>();
      for (let i = 0; i < segment.addresses.length; i++) {
        const end = (segment.addresses[i + 1] ?? segment.dataBytes) - 1;
        if (end >= at) touched.add(segment.startOffset + i);
      }
      return touched;
    }
    case 'append-index': {
      // Appending to a deleted index would create one that holds only a torn entry: exactly what a crash during a
      // new segment's first index write leaves, which tells recovery the data was never acknowledged.
      if (!existsSync(segment.indexPath)) return new Set();
      const bytes = damage.plausible ? plausibleEntries(segment, damage.bytes) : Buffer.from(damage.bytes);
      appendFileSync(segment.indexPath, bytes);
      return new Set();
    }
    case 'append-data':
      appendFileSync(segment.dataPath, damage.zeros ? Buffer.alloc(damage.bytes.length) : Buffer.from(damage.bytes));
      return new Set();
    case 'torn-frame': {
      // The data of a publish that never reached its index entry, cut anywhere: a crash, never acknowledged.
      const frame = encodeFrame(Buffer.from('{"id":"torn","topic":"t","publishedAt":1,"headers":{},"content":1}'));
      appendFileSync(segment.dataPath, frame.subarray(0, Math.max(1, Math.floor(damage.at * frame.length))));
      return new Set();
    }
    case 'delete-index':
      rmSync(segment.indexPath, { force: true });
      return new Set();
  }
}

/** Index entries a torn write could leave: inside the last frame (past its header), or anywhere in the data. */
function plausibleEntries(segment: BuiltTopic['segments'][number], seed: Uint8Array): Buffer {
  const last = segment.addresses[segment.addresses.length - 1];
  const entries = [encodeIndexEntry(last + FRAME_HEADER_BYTES + 1 + (seed[0] % 4))];
  if (seed.length > 1) entries.push(encodeIndexEntry((seed[1] * 7) % (segment.dataBytes + 1)));
  return Buffer.concat(entries);
}

function flip(path: string, at: number, bit: number): void {
  if (!existsSync(path)) return;
  const bytes = readFileSync(path);
  if (at >= bytes.length) return;
  bytes[at] ^= 1 << bit;
  writeFileSync(path, bytes);
}

function write(path: string, at: number, bytes: Buffer): void {
  if (!existsSync(path) || statSync(path).size < at + bytes.length) return;
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, bytes, 0, bytes.length, at);
  } finally {
    closeSync(fd);
  }
}

import { crc32c } from '@node-rs/crc32';

/**
 * What a subscription keeps durably: its cursor (every offset below it is settled), the offsets settled above
 * it (ack holes, as ranges), the delivery counts that survive a restart, and the delivery mark (no offset at or
 * above it was ever handed out, so everything unsettled below it may have reached a consumer).
 */
export interface SubscriptionSnapshot {
  cursor: number;
  /** Offsets at or above `cursor` that are settled, as sorted, disjoint `[first, end)` ranges. */
  settled: Array<[number, number]>;
  /** Deliveries and NACKs of unsettled offsets that were delivered more than once or NACKed. */
  counts: Array<{ offset: number; deliveries: number; nacks: number }>;
  /** Every unsettled offset below it may have been delivered; none at or above it was. */
  deliveredMark: number;
}

/** The v1 file: an 8-byte big-endian cursor and nothing else. */
export const LEGACY_CHECKPOINT_BYTES = 8;
const MAGIC = Buffer.from('MMMQSUB2');
const HEADER_BYTES = MAGIC.length + 8 + 8 + 4 + 4;
const RANGE_BYTES = 8;
const COUNT_BYTES = 12;
const CRC_BYTES = 4;

export function cursorOnly(cursor: number): SubscriptionSnapshot {
  return { cursor, settled: [], counts: [], deliveredMark: cursor };
}

/**
 * `[MMMQSUB2][u64 cursor][u64 deliveredMark][u32 ranges][u32 counts]`, then per range `[u32 first - cursor][u32
 * length]`, per count `[u32 offset - cursor][u32 deliveries][u32 nacks]`, then a CRC32C of all of it. Offsets
 * above the cursor are relative: a subscription never leases more than a bounded window past it.
 */
export function encodeSnapshot(snapshot: SubscriptionSnapshot): Buffer {
  const { cursor, settled, counts, deliveredMark } = snapshot;
  const bytes = Buffer.allocUnsafe(HEADER_BYTES + settled.length * RANGE_BYTES + counts.length * COUNT_BYTES + CRC_BYTES);
  let at = MAGIC.copy(bytes, 0);
  at = bytes.writeBigUInt64BE(BigInt(cursor), at);
  at = bytes.writeBigUInt64BE(BigInt(deliveredMark), at);
  at = bytes.writeUInt32BE(settled.length, at);
  at = bytes.writeUInt32BE(counts.length, at);
  for (const [first, end] of settled) {
    at = bytes.writeUInt32BE(first - cursor, at);
    at = bytes.writeUInt32BE(end - first, at);
  }
  for (const count of counts) {
    at = bytes.writeUInt32BE(count.offset - cursor, at);
    at = bytes.writeUInt32BE(count.deliveries, at);
    at = bytes.writeUInt32BE(count.nacks, at);
  }
  bytes.writeUInt32BE(crc32c(bytes.subarray(0, at)), at);
  return bytes;
}

/**
 * Reads a checkpoint file's bytes: the v1 8-byte cursor, or a v2 snapshot. Returns a string saying why when the
 * bytes are damaged (wrong size, checksum, or ranges out of order).
 */
export function decodeSnapshot(bytes: Buffer): SubscriptionSnapshot | string {
  if (bytes.length === LEGACY_CHECKPOINT_BYTES) return cursorOnly(Number(bytes.readBigUInt64BE(0)));
  if (bytes.length < HEADER_BYTES + CRC_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) {
    return `${bytes.length} bytes that are neither an 8-byte checkpoint nor a subscription snapshot`;
  }
  let at = MAGIC.length;
  const rangeCount = bytes.readUInt32BE(at + 16);
  const countCount = bytes.readUInt32BE(at + 20);
  // Bytes past the end are what a longer snapshot left before the file was cut to size.
  const length = HEADER_BYTES + rangeCount * RANGE_BYTES + countCount * COUNT_BYTES;
  if (bytes.length < length + CRC_BYTES) return 'a subscription snapshot cut short';
  if (crc32c(bytes.subarray(0, length)) !== bytes.readUInt32BE(length)) return 'a subscription snapshot whose checksum does not match';
  const cursor = Number(bytes.readBigUInt64BE(at));
  const deliveredMark = Number(bytes.readBigUInt64BE(at + 8));
  at = HEADER_BYTES;
  const settled: Array<[number, number]> = [];
  let previousEnd = cursor;
  for (let i = 0; i < rangeCount; i++, at += RANGE_BYTES) {
    const first = cursor + bytes.readUInt32BE(at);
    const end = first + bytes.readUInt32BE(at + 4);
    if (first < previousEnd || end <= first) return 'a subscription snapshot whose settled ranges are out of order';
    settled.push([first, end]);
    previousEnd = end;
  }
  const counts: SubscriptionSnapshot['counts'] = [];
  for (let i = 0; i < countCount; i++, at += COUNT_BYTES) {
    counts.push({ offset: cursor + bytes.readUInt32BE(at), deliveries: bytes.readUInt32BE(at + 4), nacks: bytes.readUInt32BE(at + 8) });
  }
  return { cursor, settled, counts, deliveredMark: Math.max(deliveredMark, cursor) };
}

/** The highest offset a snapshot refers to, plus one: it must not lie past the topic's log end. */
export function snapshotEnd(snapshot: SubscriptionSnapshot): number {
  const lastRange = snapshot.settled[snapshot.settled.length - 1];
  return Math.max(snapshot.cursor, lastRange ? lastRange[1] : 0);
}

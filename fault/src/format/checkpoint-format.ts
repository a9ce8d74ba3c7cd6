import { crc32c } from './crc32c';

/**
 * A consumer's checkpoint file, `topics/{topic}/checkpoints/{consumerId}.checkpoint`, and the state a journal
 * CHECKPOINT_STATE op carries — written from the format (docs/storage.md § Checkpoints), not from the
 * broker's code. Two forms:
 * - v1: exactly 8 bytes, the big-endian cursor (every offset below it settled), nothing else;
 * - v2: `MMMQSUB2` `[u64 cursor][u64 deliveredMark][u32 rangeCount][u32 countCount]`, then per settled range
 *   above the cursor `[u32 first - cursor][u32 length]`, per delivery count `[u32 offset - cursor][u32
 *   deliveries][u32 nacks]`, then `[u32 CRC32C]` of everything before it. Bytes after the CRC are tolerated (a
 *   longer snapshot's leftovers). Ranges are sorted, disjoint, non-empty and at or above the cursor.
 * Anything else is damage: the broker must restart that consumer at offset 0 with a warning.
 */
/** The folder of a topic's directory holding its consumers' checkpoint files. */
export const CHECKPOINTS_DIR = 'checkpoints';
export const CHECKPOINT_V1_BYTES = 8;
export const CHECKPOINT_V2_MAGIC = Buffer.from('MMMQSUB2', 'ascii');
/** Magic, cursor, delivered mark, range count, count count. */
export const CHECKPOINT_V2_HEADER_BYTES = CHECKPOINT_V2_MAGIC.length + 8 + 8 + 4 + 4;
const RANGE_BYTES = 8;
const COUNT_BYTES = 12;
const CRC_BYTES = 4;

export interface CheckpointState {
  /** `v1` (8 bytes) or `v2` (a snapshot). */
  form: 'v1' | 'v2';
  cursor: number;
  /** No offset at or above it was handed out (a v1 file: the cursor). */
  deliveredMark: number;
  /** Settled `[first, end)` ranges above the cursor. */
  settled: Array<[number, number]>;
  counts: Array<{ offset: number; deliveries: number; nacks: number }>;
}

/** Where a v2 snapshot's parts are, for damage aimed at one of them. */
export interface CheckpointLayout {
  header: [number, number];
  ranges: [number, number];
  counts: [number, number];
  crc: [number, number];
}

/** Decodes a checkpoint file's (or a CHECKPOINT_STATE op's) bytes; a string says why they are damaged. */
export function decodeCheckpoint(bytes: Buffer): CheckpointState | string {
  if (bytes.length === CHECKPOINT_V1_BYTES) {
    const cursor = safe(bytes.readBigUInt64BE(0));
    return cursor === undefined ? 'a v1 cursor beyond 2^53' : { form: 'v1', cursor, deliveredMark: cursor, settled: [], counts: [] };
  }
  const layout = checkpointLayout(bytes);
  if (typeof layout === 'string') return layout;
  if (crc32c(bytes.subarray(0, layout.crc[0])) !== bytes.readUInt32BE(layout.crc[0])) return 'a v2 snapshot whose CRC32C does not match';
  const cursor = safe(bytes.readBigUInt64BE(CHECKPOINT_V2_MAGIC.length));
  const mark = safe(bytes.readBigUInt64BE(CHECKPOINT_V2_MAGIC.length + 8));
  if (cursor === undefined || mark === undefined) return 'a v2 snapshot with a cursor or mark beyond 2^53';
  const settled: Array<[number, number]> = [];
  let end = cursor;
  for (let at = layout.ranges[0]; at < layout.ranges[1]; at += RANGE_BYTES) {
    const first = cursor + bytes.readUInt32BE(at);
    const length = bytes.readUInt32BE(at + 4);
    if (first < end || length === 0) return `a v2 snapshot whose settled range ${settled.length} is empty or out of order`;
    end = first + length;
    settled.push([first, end]);
  }
  const counts: CheckpointState['counts'] = [];
  for (let at = layout.counts[0]; at < layout.counts[1]; at += COUNT_BYTES) {
    counts.push({ offset: cursor + bytes.readUInt32BE(at), deliveries: bytes.readUInt32BE(at + 4), nacks: bytes.readUInt32BE(at + 8) });
  }
  return { form: 'v2', cursor, deliveredMark: Math.max(mark, cursor), settled, counts };
}

/** The byte ranges of a v2 snapshot, or why the bytes are not one. */
export function checkpointLayout(bytes: Buffer): CheckpointLayout | string {
  if (bytes.length < CHECKPOINT_V2_HEADER_BYTES + CRC_BYTES || !bytes.subarray(0, CHECKPOINT_V2_MAGIC.length).equals(CHECKPOINT_V2_MAGIC)) {
    return `${bytes.length} bytes that are neither an 8-byte cursor nor a v2 snapshot`;
  }
  const rangesEnd = CHECKPOINT_V2_HEADER_BYTES + bytes.readUInt32BE(CHECKPOINT_V2_HEADER_BYTES - 8) * RANGE_BYTES;
  const countsEnd = rangesEnd + bytes.readUInt32BE(CHECKPOINT_V2_HEADER_BYTES - 4) * COUNT_BYTES;
  if (countsEnd + CRC_BYTES > bytes.length) return 'a v2 snapshot cut short';
  return {
    header: [0, CHECKPOINT_V2_HEADER_BYTES],
    ranges: [CHECKPOINT_V2_HEADER_BYTES, rangesEnd],
    counts: [rangesEnd, countsEnd],
    crc: [countsEnd, countsEnd + CRC_BYTES],
  };
}

/**
 * Encodes a v2 snapshot exactly as the format says — also for states the broker would refuse (ranges out of order
 * or past the log end), which is what damage needs. Offsets above the cursor must fit the u32 deltas.
 */
export function encodeCheckpointV2(state: Omit<CheckpointState, 'form'>): Buffer {
  const header = Buffer.alloc(CHECKPOINT_V2_HEADER_BYTES);
  CHECKPOINT_V2_MAGIC.copy(header);
  header.writeBigUInt64BE(BigInt(state.cursor), 8);
  header.writeBigUInt64BE(BigInt(state.deliveredMark), 16);
  header.writeUInt32BE(state.settled.length, 24);
  header.writeUInt32BE(state.counts.length, 28);
  const parts: Buffer[] = [header];
  for (const [first, end] of state.settled) parts.push(u32s(first - state.cursor, end - first));
  for (const count of state.counts) parts.push(u32s(count.offset - state.cursor, count.deliveries, count.nacks));
  const body = Buffer.concat(parts);
  return Buffer.concat([body, u32s(crc32c(body))]);
}

export function encodeCheckpointV1(cursor: number): Buffer {
  const bytes = Buffer.alloc(CHECKPOINT_V1_BYTES);
  bytes.writeBigUInt64BE(BigInt(cursor));
  return bytes;
}

/** One past the highest offset a state refers to (its cursor or its last settled range): at most the log end. */
export function checkpointEnd(state: CheckpointState): number {
  const last = state.settled[state.settled.length - 1];
  return Math.max(state.cursor, last ? last[1] : 0);
}

function u32s(...values: number[]): Buffer {
  const bytes = Buffer.alloc(4 * values.length);
  values.forEach((value, i) => bytes.writeUInt32BE(value >>> 0, 4 * i));
  return bytes;
}

function safe(value: bigint): number | undefined {
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : Number(value);
}

import { crc32c } from './crc32c';
import { FRAME_HEADER_BYTES, readFrameAt } from './segment-format';

/**
 * The broker-wide journal of storage v2, written from its format note (docs/storage.md § Byte format of the journal), not from the
 * broker's code. `{rootDir}/journal/{firstSeq}.journal` (19-digit zero-padded). File header: `MMMQJNL1` + an
 * 8-byte random salt. Records back to back after it: `[u32 BE L = 4 + n][u32 BE CRC32C(salt ‖ payload)][n bytes]`.
 * Payload: `[u64 seq][u32 opCount]` then the ops, every integer big-endian:
 * 1 APPEND `[u16 topicLen][topic][u64 firstOffset][u32 entryCount][u32 framesLen][frames]`,
 * 2 CHECKPOINT `[u16 topicLen][topic][u16 idLen][consumerId][u64 nextOffset]`,
 * 3 CHECKPOINT_DELETE `[u16 topicLen][topic][u16 idLen][consumerId]`, 4 FLUSHED `[u64 seq]`,
 * 5 CHECKPOINT_STATE `[u16 topicLen][topic][u16 idLen][consumerId][u32 stateLen][state]`: a subscription's state
 * (cursor, delivered mark, settled ranges, delivery counts) as a v2 checkpoint snapshot (checkpoint-format.ts).
 */
export const JOURNAL_DIR = 'journal';
export const JOURNAL_MAGIC = Buffer.from('MMMQJNL1', 'ascii');
export const JOURNAL_SALT_BYTES = 8;
export const JOURNAL_HEADER_BYTES = JOURNAL_MAGIC.length + JOURNAL_SALT_BYTES;
/** Length field + CRC field. */
export const RECORD_HEADER_BYTES = 8;
const LENGTH_FIELD_BYTES = 4;
/** seq + opCount: the smallest payload. */
export const PAYLOAD_HEADER_BYTES = 12;
/** The smallest op: FLUSHED, a kind byte and a seq. */
export const MIN_OP_BYTES = 9;
const JOURNAL_NAME = /^(\d{19})\.journal$/;

export const OP_APPEND = 1;
export const OP_CHECKPOINT = 2;
export const OP_CHECKPOINT_DELETE = 3;
export const OP_FLUSHED = 4;
export const OP_CHECKPOINT_STATE = 5;

export type JournalOp =
  /** `frames` are the entry frames as appended to the topic's `.mmm`, one per offset from `firstOffset`. */
  | { kind: 'append'; topic: string; firstOffset: number; frames: Buffer[] }
  | { kind: 'checkpoint'; topic: string; consumerId: string; nextOffset: number }
  | { kind: 'checkpoint-delete'; topic: string; consumerId: string }
  /** `state`: the snapshot bytes as journaled (decode them with checkpoint-format.ts). */
  | { kind: 'checkpoint-state'; topic: string; consumerId: string; state: Buffer }
  | { kind: 'flushed'; seq: number };

export function journalFileName(firstSeq: number): string {
  return `${String(firstSeq).padStart(19, '0')}.journal`;
}

export function parseJournalFileName(name: string): number | undefined {
  const match = JOURNAL_NAME.exec(name);
  return match ? Number(match[1]) : undefined;
}

export function encodeJournalHeader(salt: Buffer): Buffer {
  if (salt.length !== JOURNAL_SALT_BYTES) throw new Error(`A journal salt is ${JOURNAL_SALT_BYTES} bytes`);
  return Buffer.concat([JOURNAL_MAGIC, salt]);
}

/** The CRC field of a record: CRC32C over the salt followed by the payload. */
export function recordChecksum(salt: Buffer, payload: Buffer): number {
  return crc32c(payload, crc32c(salt));
}

/** One whole record (frame + payload) of a file with this salt. */
export function encodeRecord(salt: Buffer, seq: number, ops: readonly JournalOp[]): Buffer {
  const payload = Buffer.concat([u64(seq), u32(ops.length), ...ops.map(encodeOp)]);
  return Buffer.concat([u32(LENGTH_FIELD_BYTES + payload.length), u32(recordChecksum(salt, payload)), payload]);
}

function encodeOp(op: JournalOp): Buffer {
  switch (op.kind) {
    case 'append': {
      const frames = Buffer.concat(op.frames);
      return Buffer.concat([
        u8(OP_APPEND),
        text(op.topic, 'ascii'),
        u64(op.firstOffset),
        u32(op.frames.length),
        u32(frames.length),
        frames,
      ]);
    }
    case 'checkpoint':
      return Buffer.concat([u8(OP_CHECKPOINT), text(op.topic, 'ascii'), text(op.consumerId, 'utf8'), u64(op.nextOffset)]);
    case 'checkpoint-delete':
      return Buffer.concat([u8(OP_CHECKPOINT_DELETE), text(op.topic, 'ascii'), text(op.consumerId, 'utf8')]);
    case 'checkpoint-state':
      return Buffer.concat([u8(OP_CHECKPOINT_STATE), text(op.topic, 'ascii'), text(op.consumerId, 'utf8'), u32(op.state.length), op.state]);
    case 'flushed':
      return Buffer.concat([u8(OP_FLUSHED), u64(op.seq)]);
  }
}

/** What is at one position of a journal file. */
export type RecordRead =
  | { kind: 'ok'; size: number; seq: number; ops: JournalOp[] }
  /** Fewer bytes than a record header, or a length field that is too small or runs past the end of the file. */
  | { kind: 'bad-length' }
  | { kind: 'bad-checksum'; size: number }
  /** The CRC matches, but the payload does not decode (ops past its end, frames that do not read): a bug. */
  | { kind: 'bad-payload'; size: number; problem: string };

/** Reads the record at `at` of a journal file's bytes, checking its length, salted CRC and payload. */
export function readRecordAt(file: Buffer, salt: Buffer, at: number): RecordRead {
  if (at + RECORD_HEADER_BYTES > file.length) return { kind: 'bad-length' };
  const length = file.readUInt32BE(at);
  const size = LENGTH_FIELD_BYTES + length;
  if (length < LENGTH_FIELD_BYTES + PAYLOAD_HEADER_BYTES || at + size > file.length) return { kind: 'bad-length' };
  const payload = file.subarray(at + RECORD_HEADER_BYTES, at + size);
  if (recordChecksum(salt, payload) !== file.readUInt32BE(at + LENGTH_FIELD_BYTES)) return { kind: 'bad-checksum', size };
  try {
    return { kind: 'ok', size, ...decodePayload(payload) };
  } catch (error) {
    return { kind: 'bad-payload', size, problem: (error as Error).message };
  }
}

function decodePayload(payload: Buffer): { seq: number; ops: JournalOp[] } {
  const reader = new PayloadReader(payload);
  const seq = reader.u64();
  const count = reader.u32();
  const ops: JournalOp[] = [];
  for (let i = 0; i < count; i++) ops.push(decodeOp(reader));
  if (!reader.atEnd()) throw new Error(`${payload.length - reader.position} bytes after op ${count - 1}`);
  return { seq, ops };
}

function decodeOp(reader: PayloadReader): JournalOp {
  const kind = reader.u8();
  switch (kind) {
    case OP_APPEND: {
      const topic = reader.text('ascii');
      const firstOffset = reader.u64();
      const entryCount = reader.u32();
      const bytes = reader.bytes(reader.u32());
      return { kind: 'append', topic, firstOffset, frames: splitFrames(bytes, entryCount) };
    }
    case OP_CHECKPOINT:
      return { kind: 'checkpoint', topic: reader.text('ascii'), consumerId: reader.text('utf8'), nextOffset: reader.u64() };
    case OP_CHECKPOINT_DELETE:
      return { kind: 'checkpoint-delete', topic: reader.text('ascii'), consumerId: reader.text('utf8') };
    case OP_FLUSHED:
      return { kind: 'flushed', seq: reader.u64() };
    case OP_CHECKPOINT_STATE: {
      const topic = reader.text('ascii');
      const consumerId = reader.text('utf8');
      return { kind: 'checkpoint-state', topic, consumerId, state: Buffer.from(reader.bytes(reader.u32())) };
    }
    default:
      throw new Error(`unknown op kind ${kind} at payload byte ${reader.position - 1}`);
  }
}

/** Exactly `count` intact entry frames, back to back, filling `bytes`. */
function splitFrames(bytes: Buffer, count: number): Buffer[] {
  const frames: Buffer[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const frame = readFrameAt(bytes, at);
    if (frame.kind !== 'ok') throw new Error(`APPEND frame ${i} of ${count} does not read (${frame.kind} at byte ${at})`);
    frames.push(bytes.subarray(at, at + frame.size));
    at += frame.size;
  }
  if (at !== bytes.length) throw new Error(`APPEND frames end at byte ${at} of ${bytes.length}`);
  return frames;
}

/** The payload of an entry frame (the stored message envelope). */
export function framePayload(frame: Buffer): Buffer {
  return frame.subarray(FRAME_HEADER_BYTES);
}

class PayloadReader {
  position = 0;

  constructor(private readonly payload: Buffer) {}

  atEnd(): boolean {
    return this.position === this.payload.length;
  }

  u8(): number {
    return this.take(1).readUInt8(0);
  }

  u32(): number {
    return this.take(4).readUInt32BE(0);
  }

  u64(): number {
    const value = this.take(8).readBigUInt64BE(0);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`a 64-bit value ${value} beyond 2^53`);
    return Number(value);
  }

  text(encoding: 'ascii' | 'utf8'): string {
    const length = this.take(2).readUInt16BE(0);
    return this.take(length).toString(encoding);
  }

  bytes(length: number): Buffer {
    return this.take(length);
  }

  private take(length: number): Buffer {
    if (this.position + length > this.payload.length) {
      throw new Error(`${length} bytes wanted at payload byte ${this.position} of ${this.payload.length}`);
    }
    const bytes = this.payload.subarray(this.position, this.position + length);
    this.position += length;
    return bytes;
  }
}

function u8(value: number): Buffer {
  return Buffer.from([value]);
}

function u32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}

function u64(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(value));
  return bytes;
}

function text(value: string, encoding: 'ascii' | 'utf8'): Buffer {
  const bytes = Buffer.from(value, encoding);
  return Buffer.concat([Buffer.from([bytes.length >> 8, bytes.length & 0xff]), bytes]);
}

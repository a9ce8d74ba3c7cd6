import { CorruptionError } from '../storage.errors';

/** What one operation of a journal record does. */
export enum JournalOpKind {
  /** Entries appended to a topic's log. */
  APPEND = 1,
  /** A consumer's checkpoint moved. */
  CHECKPOINT = 2,
  /** A consumer's checkpoint was removed (its subscription ended). */
  CHECKPOINT_DELETE = 3,
  /** Every record up to a sequence number is durable in the topic and checkpoint files. */
  FLUSHED = 4,
  /** A consumer's subscription state moved: cursor, settled offsets above it, delivery counts (a snapshot). */
  CHECKPOINT_STATE = 5,
}

export interface AppendOp {
  kind: JournalOpKind.APPEND;
  topic: string;
  firstOffset: number;
  entryCount: number;
  /** The entry frames exactly as they go into the topic's `.mmm`, back to back. */
  frames: Buffer;
}

export interface CheckpointOp {
  kind: JournalOpKind.CHECKPOINT;
  topic: string;
  consumerId: string;
  offset: number;
}

export interface CheckpointStateOp {
  kind: JournalOpKind.CHECKPOINT_STATE;
  topic: string;
  consumerId: string;
  /** An encoded SubscriptionSnapshot (subscription-snapshot.ts). */
  state: Buffer;
}

export interface CheckpointDeleteOp {
  kind: JournalOpKind.CHECKPOINT_DELETE;
  topic: string;
  consumerId: string;
}

export interface FlushedOp {
  kind: JournalOpKind.FLUSHED;
  seq: number;
}

export type JournalOp = AppendOp | CheckpointOp | CheckpointStateOp | CheckpointDeleteOp | FlushedOp;

/** A decoded record: one commit group of the broker. */
export interface JournalRecord {
  seq: number;
  ops: JournalOp[];
}

/** `[8 B seq][4 B op count]` opens every record payload. */
export const RECORD_HEADER_BYTES = 12;
const KIND_BYTES = 1;
const NAME_LENGTH_BYTES = 2;

/** Encoded size of an op; `frames` of an append are counted, not copied. */
export function encodedOpBytes(op: JournalOp): number {
  switch (op.kind) {
    case JournalOpKind.APPEND:
      return KIND_BYTES + NAME_LENGTH_BYTES + op.topic.length + 8 + 4 + 4 + op.frames.length;
    case JournalOpKind.CHECKPOINT:
      return KIND_BYTES + NAME_LENGTH_BYTES * 2 + op.topic.length + Buffer.byteLength(op.consumerId) + 8;
    case JournalOpKind.CHECKPOINT_STATE:
      return KIND_BYTES + NAME_LENGTH_BYTES * 2 + op.topic.length + Buffer.byteLength(op.consumerId) + 4 + op.state.length;
    case JournalOpKind.CHECKPOINT_DELETE:
      return KIND_BYTES + NAME_LENGTH_BYTES * 2 + op.topic.length + Buffer.byteLength(op.consumerId);
    case JournalOpKind.FLUSHED:
      return KIND_BYTES + 8;
  }
}

/**
 * Writes a record payload into `target` at `at` and returns where each append's frames landed (so the topic file
 * write can reuse those bytes instead of copying them again).
 */
export function encodeRecordPayload(record: JournalRecord, target: Buffer, at: number): number[] {
  let position = at;
  target.writeBigUInt64BE(BigInt(record.seq), position);
  target.writeUInt32BE(record.ops.length, position + 8);
  position += RECORD_HEADER_BYTES;
  const frameStarts: number[] = [];
  for (const op of record.ops) {
    target.writeUInt8(op.kind, position);
    position += KIND_BYTES;
    if (op.kind === JournalOpKind.FLUSHED) {
      target.writeBigUInt64BE(BigInt(op.seq), position);
      position += 8;
      continue;
    }
    position = writeName(target, op.topic, position, 'latin1');
    if (op.kind === JournalOpKind.APPEND) {
      target.writeBigUInt64BE(BigInt(op.firstOffset), position);
      target.writeUInt32BE(op.entryCount, position + 8);
      target.writeUInt32BE(op.frames.length, position + 12);
      position += 16;
      frameStarts.push(position);
      position += op.frames.copy(target, position);
      continue;
    }
    position = writeName(target, op.consumerId, position, 'utf8');
    if (op.kind === JournalOpKind.CHECKPOINT) {
      target.writeBigUInt64BE(BigInt(op.offset), position);
      position += 8;
    } else if (op.kind === JournalOpKind.CHECKPOINT_STATE) {
      target.writeUInt32BE(op.state.length, position);
      position += 4 + op.state.copy(target, position + 4);
    }
  }
  return frameStarts;
}

/** Decodes a record payload whose checksum matched; throws CorruptionError if its structure does not add up. */
export function decodeRecordPayload(payload: Buffer): JournalRecord {
  const reader = new PayloadReader(payload);
  const seq = reader.u64();
  const count = reader.u32();
  const ops: JournalOp[] = [];
  for (let i = 0; i < count; i++) ops.push(reader.op());
  if (reader.remaining !== 0) throw new CorruptionError(`Journal record ${seq} has ${reader.remaining} bytes after its ops`);
  return { seq, ops };
}

function writeName(target: Buffer, name: string, position: number, encoding: BufferEncoding): number {
  const length = target.write(name, position + NAME_LENGTH_BYTES, encoding);
  target.writeUInt16BE(length, position);
  return position + NAME_LENGTH_BYTES + length;
}

class PayloadReader {
  private position = 0;

  constructor(private readonly bytes: Buffer) {}

  get remaining(): number {
    return this.bytes.length - this.position;
  }

  op(): JournalOp {
    const kind = this.take(KIND_BYTES).readUInt8(0);
    if (kind === JournalOpKind.FLUSHED) return { kind, seq: this.u64() };
    const topic = this.name('latin1');
    if (kind === JournalOpKind.APPEND) {
      const firstOffset = this.u64();
      const entryCount = this.u32();
      const frames = this.take(this.u32());
      return { kind, topic, firstOffset, entryCount, frames };
    }
    const consumerId = this.name('utf8');
    if (kind === JournalOpKind.CHECKPOINT) return { kind, topic, consumerId, offset: this.u64() };
    if (kind === JournalOpKind.CHECKPOINT_STATE) return { kind, topic, consumerId, state: Buffer.from(this.take(this.u32())) };
    if (kind === JournalOpKind.CHECKPOINT_DELETE) return { kind, topic, consumerId };
    throw new CorruptionError(`Unknown journal op kind ${kind}`);
  }

  u32(): number {
    return this.take(4).readUInt32BE(0);
  }

  u64(): number {
    return Number(this.take(8).readBigUInt64BE(0));
  }

  private name(encoding: BufferEncoding): string {
    return this.take(this.take(NAME_LENGTH_BYTES).readUInt16BE(0)).toString(encoding);
  }

  private take(length: number): Buffer {
    if (length > this.remaining) throw new CorruptionError('A journal record ends in the middle of an op');
    const slice = this.bytes.subarray(this.position, this.position + length);
    this.position += length;
    return slice;
  }
}

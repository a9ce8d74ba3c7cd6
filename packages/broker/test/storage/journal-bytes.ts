import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeFrames, FRAME_HEADER_BYTES } from '../../src/storage/entry-frame';
import { JOURNAL_HEADER_BYTES, JOURNAL_MAGIC, journalFileName, recordChecksum } from '../../src/storage/journal/journal-file';
import {
  AppendOp,
  decodeRecordPayload,
  encodedOpBytes,
  encodeRecordPayload,
  JournalOp,
  JournalOpKind,
  JournalRecord,
  RECORD_HEADER_BYTES,
} from '../../src/storage/journal/journal-record';
import { frameStarts } from '../../src/storage/journal/journal-replay';

/** A fixed salt, so the bytes of a test journal are the same at every run. */
export const TEST_SALT = Buffer.from('5a17ed5a17ed5a17', 'hex');

/** An APPEND op of `payloads` (text) to `topic` from `firstOffset`. */
export function appendOp(topic: string, firstOffset: number, payloads: readonly (string | Buffer)[]): AppendOp {
  const frames = encodeFrames(payloads.map((payload) => (typeof payload === 'string' ? Buffer.from(payload) : payload))).bytes;
  return { kind: JournalOpKind.APPEND, topic, firstOffset, entryCount: payloads.length, frames };
}

export function flushedOp(seq: number): JournalOp {
  return { kind: JournalOpKind.FLUSHED, seq };
}

/** One record framed as the journal writes it: `[4 B L = 4 + n][4 B CRC32C(salt ‖ payload)][payload]`. */
export function encodeRecord(record: JournalRecord, salt: Buffer = TEST_SALT): Buffer {
  const payloadBytes = RECORD_HEADER_BYTES + record.ops.reduce((sum, op) => sum + encodedOpBytes(op), 0);
  const frame = Buffer.alloc(FRAME_HEADER_BYTES + payloadBytes);
  encodeRecordPayload(record, frame, FRAME_HEADER_BYTES);
  const payload = frame.subarray(FRAME_HEADER_BYTES);
  frame.writeUInt32BE(4 + payload.length, 0);
  frame.writeUInt32BE(recordChecksum(salt, payload), 4);
  return frame;
}

export function journalHeader(salt: Buffer = TEST_SALT): Buffer {
  return Buffer.concat([JOURNAL_MAGIC, salt]);
}

/** Writes `{firstSeq}.journal` in `dir` with a header and `content` after it; returns its path. */
export function writeJournalFile(dir: string, firstSeq: number, content: readonly Buffer[], salt: Buffer = TEST_SALT): string {
  const path = join(dir, journalFileName(firstSeq));
  writeFileSync(path, Buffer.concat([journalHeader(salt), ...content]));
  return path;
}

/** Where each record of a journal file starts and ends (read by the length fields, from the header on). */
export function recordRegions(path: string): Array<{ start: number; end: number }> {
  const bytes = readFileSync(path);
  const regions: Array<{ start: number; end: number }> = [];
  for (let start = JOURNAL_HEADER_BYTES; start + 4 <= bytes.length;) {
    const end = start + 4 + bytes.readUInt32BE(start);
    if (end > bytes.length) break;
    regions.push({ start, end });
    start = end;
  }
  return regions;
}

/** The payloads of every entry a framed record (as handed to the journal file write) appends, in record order. */
export function recordPayloads(frame: Buffer): string[] {
  const { ops } = decodeRecordPayload(frame.subarray(FRAME_HEADER_BYTES));
  return ops.flatMap((op) => {
    if (op.kind !== JournalOpKind.APPEND) return [];
    const starts = frameStarts(op.frames, op.entryCount);
    return starts.map((start, i) => op.frames.subarray(start + FRAME_HEADER_BYTES, starts[i + 1] ?? op.frames.length).toString());
  });
}

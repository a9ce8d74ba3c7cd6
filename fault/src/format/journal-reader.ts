import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeCheckpoint } from './checkpoint-format';
import {
  JOURNAL_DIR,
  JOURNAL_HEADER_BYTES,
  JOURNAL_MAGIC,
  JournalOp,
  parseJournalFileName,
  MIN_OP_BYTES,
  PAYLOAD_HEADER_BYTES,
  readRecordAt,
  RECORD_HEADER_BYTES,
} from './journal-format';

/** One intact record: where it is and what it says. */
export interface JournalRecord {
  path: string;
  /** Byte range of the whole record (frame header included) in its file. */
  start: number;
  end: number;
  seq: number;
  ops: JournalOp[];
}

/** Bytes that hold no intact record: mid-journal damage (an intact record follows) or a torn tail (none does). */
export interface JournalDamage {
  path: string;
  at: number;
  /** Where the next intact record starts in that file (undefined: no intact record after it in the file). */
  resumesAt?: number;
  /** What the first unreadable position held. */
  reason: string;
}

export interface JournalFile {
  path: string;
  firstSeq: number;
  size: number;
  /** `ok`, or why the header does not read (no record of such a file can be trusted). */
  header: 'ok' | 'torn' | 'bad-magic';
  salt?: Buffer;
  records: JournalRecord[];
  damage: JournalDamage[];
}

/** The journal as the checker reads it, with what the format note derives from it. */
export interface JournalView {
  dir: string;
  files: JournalFile[];
  /** Every intact record, in file order. */
  records: JournalRecord[];
  /** P: the highest FLUSHED seq of an intact record (0 when there is none). */
  flushedSeq: number;
  /** f_T: per topic, the firstOffset of its first APPEND in a record with seq > P. */
  firstUnflushedOffset: Map<string, number>;
  /** The last intact record of the journal (in its last file that holds one). */
  lastRecord?: JournalRecord;
  /** Violations of the format's invariants: sequence gaps, file names, payloads that do not decode. */
  problems: string[];
}

/** Reads `{rootDir}/journal/*.journal` in sequence order; an absent directory reads as an empty journal. */
export function readJournal(rootDir: string): JournalView {
  const dir = join(rootDir, JOURNAL_DIR);
  const names = existsSync(dir) ? readdirSync(dir) : [];
  const problems: string[] = [];
  const files = names
    .map((name) => ({ name, firstSeq: parseJournalFileName(name) }))
    .filter((file): file is { name: string; firstSeq: number } => file.firstSeq !== undefined)
    .sort((a, b) => a.firstSeq - b.firstSeq)
    .map(({ name, firstSeq }) => readJournalFile(join(dir, name), firstSeq, problems));
  const records = files.flatMap((file) => file.records);
  for (let i = 1; i < records.length; i++) {
    if (records[i].seq !== records[i - 1].seq + 1) {
      problems.push(`${records[i].path}@${records[i].start}: seq ${records[i].seq} follows seq ${records[i - 1].seq}`);
    }
  }
  for (const record of records) problems.push(...stateProblems(record));
  let flushedSeq = 0;
  for (const record of records) for (const op of record.ops) if (op.kind === 'flushed') flushedSeq = Math.max(flushedSeq, op.seq);
  const firstUnflushedOffset = new Map<string, number>();
  for (const record of records) {
    if (record.seq <= flushedSeq) continue;
    for (const op of record.ops) {
      if (op.kind === 'append' && !firstUnflushedOffset.has(op.topic)) firstUnflushedOffset.set(op.topic, op.firstOffset);
    }
  }
  return { dir, files, records, flushedSeq, firstUnflushedOffset, lastRecord: records[records.length - 1], problems };
}

export function readJournalFile(path: string, firstSeq: number, problems: string[] = []): JournalFile {
  const bytes = readFileSync(path);
  const file: JournalFile = { path, firstSeq, size: bytes.length, header: 'ok', records: [], damage: [] };
  if (bytes.length < JOURNAL_HEADER_BYTES) {
    file.header = 'torn';
    return file;
  }
  if (!bytes.subarray(0, JOURNAL_MAGIC.length).equals(JOURNAL_MAGIC)) {
    file.header = 'bad-magic';
    problems.push(`${path}: the header does not start with ${JOURNAL_MAGIC.toString('ascii')}`);
    return file;
  }
  const salt = bytes.subarray(JOURNAL_MAGIC.length, JOURNAL_HEADER_BYTES);
  file.salt = salt;
  let at = JOURNAL_HEADER_BYTES;
  while (at < bytes.length) {
    const read = readRecordAt(bytes, salt, at);
    if (read.kind === 'ok') {
      file.records.push({ path, start: at, end: at + read.size, seq: read.seq, ops: read.ops });
      at += read.size;
      continue;
    }
    if (read.kind === 'bad-payload') problems.push(`${path}@${at}: an intact frame whose payload does not decode: ${read.problem}`);
    const previous = file.records[file.records.length - 1]?.seq ?? firstSeq - 1;
    const resumesAt = nextIntactRecord(bytes, salt, at + 1, previous);
    file.damage.push({ path, at, resumesAt, reason: read.kind });
    if (resumesAt === undefined) break;
    at = resumesAt;
  }
  const first = file.records[0];
  if (first && first.seq !== firstSeq) problems.push(`${path}: named after seq ${firstSeq}, its first record has seq ${first.seq}`);
  return file;
}

/** Sequence numbers further than this past the last intact record cannot be the next one (a cheap pre-check). */
const MAX_SEQ_JUMP = 2 ** 32;

/**
 * The next position from `from` where an intact record with a sequence number after `previousSeq` starts,
 * scanning byte by byte, if any. Positions whose length, sequence number or op count cannot be a record's are
 * passed over before any checksum is computed (a torn multi-megabyte group would otherwise cost seconds).
 */
function nextIntactRecord(bytes: Buffer, salt: Buffer, from: number, previousSeq: number): number | undefined {
  const last = bytes.length - RECORD_HEADER_BYTES - PAYLOAD_HEADER_BYTES;
  for (let at = from; at <= last; at++) {
    const length = bytes.readUInt32BE(at);
    if (length < 4 + PAYLOAD_HEADER_BYTES || at + 4 + length > bytes.length) continue;
    const seqHigh = bytes.readUInt32BE(at + RECORD_HEADER_BYTES);
    const seq = seqHigh * 2 ** 32 + bytes.readUInt32BE(at + RECORD_HEADER_BYTES + 4);
    if (seqHigh >= 2 ** 21 || seq <= previousSeq || seq > previousSeq + MAX_SEQ_JUMP) continue;
    const opCount = bytes.readUInt32BE(at + RECORD_HEADER_BYTES + 8);
    if (opCount * MIN_OP_BYTES > length - 4 - PAYLOAD_HEADER_BYTES) continue;
    if (readRecordAt(bytes, salt, at).kind === 'ok') return at;
  }
  return undefined;
}

/** CHECKPOINT_STATE ops of an intact record whose state is not a v2 snapshot that decodes (the broker writes none). */
function stateProblems(record: JournalRecord): string[] {
  return record.ops.flatMap((op) => {
    if (op.kind !== 'checkpoint-state') return [];
    const state = decodeCheckpoint(op.state);
    if (typeof state !== 'string' && state.form === 'v2') return [];
    const why = typeof state === 'string' ? state : 'an 8-byte v1 cursor';
    return [`${record.path}@${record.start}: seq ${record.seq}: the CHECKPOINT_STATE of ${op.topic} → ${op.consumerId} holds ${why}`];
  });
}

/** Every APPEND of a record, with each entry's offset. */
export function appendedEntries(record: JournalRecord): Array<{ topic: string; offset: number; frame: Buffer }> {
  return record.ops.flatMap((op) =>
    op.kind === 'append' ? op.frames.map((frame, i) => ({ topic: op.topic, offset: op.firstOffset + i, frame })) : [],
  );
}

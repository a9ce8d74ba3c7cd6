import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { FRAME_HEADER_BYTES } from '../entry-frame';
import { JOURNAL_HEADER_BYTES, JOURNAL_MAGIC, parseJournalFileName, recordChecksum, SPARE_JOURNAL_FILE } from './journal-file';
import { decodeRecordPayload, JournalRecord, RECORD_HEADER_BYTES } from './journal-record';

/** What reading the journal directory found. */
export interface JournalScan {
  /** Files in sequence order. */
  files: Array<{ firstSeq: number; path: string }>;
  /** Every intact record, in sequence order. */
  records: JournalRecord[];
  /** What was damaged, for the log: one line per damaged region. */
  damage: string[];
  /** A torn tail of the last file (never acknowledged): where the file is cut. */
  tornTail?: { path: string; at: number; bytes: number };
  /** Files whose records end before zeros they were preallocated with (`JournalPreallocation`): where each is cut. */
  unusedTails: Array<{ path: string; at: number }>;
  /** A journal file kept for reuse, if there is one. */
  spare?: string;
}

/**
 * Reads every journal file and decodes its records. A record that fails its checksum (or whose content does not
 * add up) is damage: the scan looks for the next intact record byte by byte — a frame whose length fits, whose
 * checksum over the file's salt and payload matches, and whose sequence number comes after the last good one. If
 * one is found, the records in between are reported lost and the scan goes on; if none is, the damage is the
 * torn tail of a write that was never acknowledged.
 */
export async function scanJournal(dir: string): Promise<JournalScan> {
  const names = await fs.readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const files = names
    .map((name) => ({ firstSeq: parseJournalFileName(name), path: join(dir, name) }))
    .filter((file): file is { firstSeq: number; path: string } => file.firstSeq !== undefined)
    .sort((a, b) => a.firstSeq - b.firstSeq);
  const scan: JournalScan = {
    files,
    records: [],
    damage: [],
    unusedTails: [],
    spare: names.includes(SPARE_JOURNAL_FILE) ? join(dir, SPARE_JOURNAL_FILE) : undefined,
  };
  let lastSeq = 0;
  for (const [i, file] of files.entries()) {
    const bytes = await fs.readFile(file.path);
    const isLast = i === files.length - 1;
    if (bytes.length < JOURNAL_HEADER_BYTES || !bytes.subarray(0, JOURNAL_MAGIC.length).equals(JOURNAL_MAGIC)) {
      if (!isLast || bytes.length > JOURNAL_HEADER_BYTES) scan.damage.push(`${file.path}: no journal header; the file is skipped`);
      continue;
    }
    const salt = bytes.subarray(JOURNAL_MAGIC.length, JOURNAL_HEADER_BYTES);
    let position = JOURNAL_HEADER_BYTES;
    // A file holds no record older than its name; a recycled file's leftovers are older still (and another salt's).
    lastSeq = Math.max(lastSeq, file.firstSeq - 1);
    while (position < bytes.length) {
      const record = readRecordAt(bytes, position, salt, lastSeq);
      if (record) {
        scan.records.push(record.record);
        lastSeq = record.record.seq;
        position = record.end;
        continue;
      }
      if (allZero(bytes, position)) {
        scan.unusedTails.push({ path: file.path, at: position });
        break;
      }
      const next = findNextRecord(bytes, position + 1, salt, lastSeq);
      if (next) {
        scan.damage.push(
          `${file.path}: ${next.start - position} damaged bytes at ${position}; records ${lastSeq + 1}..` +
            `${next.record.seq - 1} are lost, the records after them are replayed`,
        );
        position = next.start;
        continue;
      }
      if (isLast) scan.tornTail = { path: file.path, at: position, bytes: bytes.length - position };
      else scan.damage.push(`${file.path}: ${bytes.length - position} damaged bytes at ${position} to the end of the file`);
      break;
    }
  }
  return scan;
}

const ZERO_RUN = Buffer.alloc(64 * 1024);

/** Whether every byte from `from` on is zero. */
function allZero(bytes: Buffer, from: number): boolean {
  for (let start = from; start < bytes.length; start += ZERO_RUN.length) {
    const end = Math.min(bytes.length, start + ZERO_RUN.length);
    if (!bytes.subarray(start, end).equals(ZERO_RUN.subarray(0, end - start))) return false;
  }
  return true;
}

/** The smallest record: a frame header, a record header and one FLUSHED op. */
const MIN_RECORD_BYTES = FRAME_HEADER_BYTES + RECORD_HEADER_BYTES + 9;

/**
 * The record at `position` if it is intact and comes next: its sequence number must follow `lastSeq` within what
 * the rest of the file could hold (checked before the checksum, so scanning garbage rarely computes one).
 */
function readRecordAt(bytes: Buffer, position: number, salt: Buffer, lastSeq: number): { record: JournalRecord; end: number } | undefined {
  if (position + MIN_RECORD_BYTES > bytes.length) return undefined;
  const length = bytes.readUInt32BE(position);
  const end = position + 4 + length;
  if (length < 4 + RECORD_HEADER_BYTES || end > bytes.length) return undefined;
  const seq = Number(bytes.readBigUInt64BE(position + FRAME_HEADER_BYTES));
  if (seq <= lastSeq || seq > lastSeq + 1 + (bytes.length - position) / MIN_RECORD_BYTES) return undefined;
  const payload = bytes.subarray(position + FRAME_HEADER_BYTES, end);
  if (recordChecksum(salt, payload) !== bytes.readUInt32BE(position + 4)) return undefined;
  try {
    const record = decodeRecordPayload(payload);
    return { record, end };
  } catch {
    return undefined;
  }
}

function findNextRecord(bytes: Buffer, from: number, salt: Buffer, lastSeq: number) {
  for (let start = from; start + MIN_RECORD_BYTES <= bytes.length; start++) {
    const length = bytes.readUInt32BE(start);
    if (length < 4 + RECORD_HEADER_BYTES || start + 4 + length > bytes.length) continue;
    const found = readRecordAt(bytes, start, salt, lastSeq);
    if (found) return { start, ...found };
  }
  return undefined;
}

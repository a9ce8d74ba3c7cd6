import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import { FRAME_HEADER_BYTES } from '../entry-frame';
import { FileHandle } from '../file-handle';
import { StorageError } from '../storage.errors';
import { JournalPreallocation } from './journal-preallocation';

export const JOURNAL_FILE_EXTENSION = '.journal';
/** A journal file past this size is closed and the next record starts a new one (named by its sequence number). */
export const JOURNAL_FILE_MAX_BYTES = 64 * 1024 * 1024;
/** A journal file the flush no longer needs, kept to be renamed into the next one (not a journal file name). */
export const SPARE_JOURNAL_FILE = 'spare.journal-recycled';
/** `MMMQJNL1`: what a journal file starts with. */
export const JOURNAL_MAGIC = Buffer.from('MMMQJNL1', 'latin1');
export const JOURNAL_SALT_BYTES = 8;
export const JOURNAL_HEADER_BYTES = JOURNAL_MAGIC.length + JOURNAL_SALT_BYTES;
const FILE_NAME_DIGITS = 19;

export function journalFileName(firstSeq: number): string {
  return String(firstSeq).padStart(FILE_NAME_DIGITS, '0') + JOURNAL_FILE_EXTENSION;
}

/** The first sequence number named by a journal file, or undefined for any other file. */
export function parseJournalFileName(name: string): number | undefined {
  const match = /^(\d{19})\.journal$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/**
 * The checksum of a record: CRC32C over the file's salt followed by the payload. The salt is random per file, so a
 * frame that a producer hides inside a message's content can never pass for a record when recovery scans for the
 * next intact one.
 */
export function recordChecksum(salt: Buffer, payload: Buffer): number {
  return crc32c(payload, crc32c(salt));
}

/**
 * One file of the journal: a header with its salt, then records `[4 B L = 4 + n][4 B checksum][n payload bytes]`.
 * A file may be a recycled one, longer than what was written to it: past `end` it holds an older file's records,
 * whose checksums were computed with another salt, so they never read as records of this one.
 */
export class JournalFile {
  private readonly preallocation: JournalPreallocation;

  private constructor(
    readonly firstSeq: number,
    private readonly file: FileHandle,
    readonly salt: Buffer,
    private position: number,
    preallocateUpTo: number,
  ) {
    this.preallocation = new JournalPreallocation(file, file.size, preallocateUpTo);
    this.preallocation.afterWrite(position);
  }

  /**
   * Creates the file whose first record will be `firstSeq` — from `recycled` (an older journal file, renamed, so
   * its blocks are already allocated: appends then overwrite them and an fdatasync has no new file size to commit)
   * or from nothing, then allocated ahead of its records up to `preallocateUpTo` bytes (`JournalPreallocation`).
   * Its header is durable once this resolves; the caller syncs the directory.
   */
  static async create(dir: string, firstSeq: number, recycled?: string, preallocateUpTo = JOURNAL_FILE_MAX_BYTES): Promise<JournalFile> {
    const path = join(dir, journalFileName(firstSeq));
    if (recycled) await fs.rename(recycled, path);
    const file = await FileHandle.open(path, true);
    try {
      if (!recycled && file.size > 0) await file.truncate(0);
      const salt = randomBytes(JOURNAL_SALT_BYTES);
      await file.writeAt(Buffer.concat([JOURNAL_MAGIC, salt]), 0);
      await file.sync();
      return new JournalFile(firstSeq, file, salt, JOURNAL_HEADER_BYTES, preallocateUpTo);
    } catch (cause) {
      await file.close().catch(() => undefined);
      throw new StorageError(`Cannot create the journal file ${path}`, { cause });
    }
  }

  get path(): string {
    return this.file.path;
  }

  /** End of the last record written, header included. */
  get size(): number {
    return this.position;
  }

  /**
   * Fills in the frame header of `record` (its first FRAME_HEADER_BYTES are reserved for it, the payload follows)
   * and appends it. Not durable until `sync`.
   */
  async append(record: Buffer): Promise<void> {
    const payload = record.subarray(FRAME_HEADER_BYTES);
    record.writeUInt32BE(4 + payload.length, 0);
    record.writeUInt32BE(recordChecksum(this.salt, payload), 4);
    await this.preallocation.beforeWrite(this.position + record.length);
    await this.file.writeAt(record, this.position);
    this.position += record.length;
    this.preallocation.afterWrite(this.position);
  }

  /** Resolves once no extension of the file's allocation runs (see `JournalPreallocation`). */
  preallocated(): Promise<void> {
    return this.preallocation.settle();
  }

  /** `onEventLoop` waits for the disk without a trip through libuv's thread pool (for a lone commit). */
  sync(onEventLoop = false): Promise<void> {
    return this.file.sync(onEventLoop);
  }

  /** Cuts the file back to `size` bytes and makes that durable. */
  async truncate(size: number): Promise<void> {
    await this.preallocation.settle(size);
    await this.file.truncate(size);
    await this.file.sync();
    this.position = size;
  }

  async close(): Promise<void> {
    await this.preallocation.settle();
    await this.file.close();
  }
}

import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { syncDirectory } from '../file-handle';
import { JournalFile, SPARE_JOURNAL_FILE } from './journal-file';

/** A journal file that holds records, known by the sequence number of its first one. */
export interface JournalFileEntry {
  firstSeq: number;
  path: string;
}

/**
 * The files of the journal directory: the one being written, the older ones a flush has not covered yet, and a
 * spare (a covered file kept to become the next one, its blocks already allocated).
 */
export class JournalFiles {
  private constructor(
    readonly dir: string,
    private current: JournalFile,
    private older: JournalFileEntry[],
    private spare: string | undefined,
  ) {}

  /**
   * Starts writing a new file at `nextSeq` (in the spare, if there is one) beside the `older` files recovery left.
   * Its first allocation is done before the broker answers anything, so the first commits find it.
   */
  static async open(dir: string, nextSeq: number, older: JournalFileEntry[], spare?: string): Promise<JournalFiles> {
    const current = await JournalFile.create(dir, nextSeq, spare);
    await current.preallocated();
    await syncDirectory(dir);
    return new JournalFiles(
      dir,
      current,
      older.filter((file) => file.path !== current.path),
      undefined,
    );
  }

  /** The file records are appended to. */
  get writing(): JournalFile {
    return this.current;
  }

  get count(): number {
    return this.older.length + 1;
  }

  /** Bytes of the journal files, the current one counted as written so far. */
  async byteSize(): Promise<number> {
    const sizes = await Promise.all(
      this.older.map((file) =>
        fs.stat(file.path).then(
          (stat) => stat.size,
          () => 0,
        ),
      ),
    );
    return sizes.reduce((sum, size) => sum + size, this.current.size);
  }

  /** Closes the current file and starts the next one at `seq`, in the spare file when there is one. */
  async rotate(seq: number): Promise<void> {
    const spare = this.spare;
    this.spare = undefined;
    const next = await JournalFile.create(this.dir, seq, spare);
    try {
      await syncDirectory(this.dir);
    } catch (cause) {
      await next.close().catch(() => undefined);
      throw cause;
    }
    const previous = this.current;
    this.current = next;
    // A retried rotation (or one after a failure in a file's first record) re-creates the file it replaces.
    if (previous.path !== next.path) this.older.push({ firstSeq: previous.firstSeq, path: previous.path });
    await previous.close().catch(() => undefined);
  }

  /**
   * Deletes the files whose every record is at or below `flushedSeq`; the newest of them is kept, renamed, as the
   * spare: writing into allocated blocks makes the journal's fdatasyncs cheaper.
   */
  async deleteCovered(flushedSeq: number): Promise<void> {
    const boundaries = [...this.older.map((file) => file.firstSeq), this.current.firstSeq];
    let covered = 0;
    while (covered < this.older.length && boundaries[covered + 1] - 1 <= flushedSeq) covered++;
    if (covered === 0) return;
    const deleted = this.older.splice(0, covered);
    const recycled = this.spare ? undefined : deleted.pop();
    for (const file of deleted) await fs.rm(file.path, { force: true });
    if (recycled) {
      this.spare = join(this.dir, SPARE_JOURNAL_FILE);
      await fs.rename(recycled.path, this.spare);
    }
    await syncDirectory(this.dir);
  }

  /**
   * Cuts the current file after its last record (a recycled file holds an older file's leftovers past it; without
   * them the next boot has no tail to cut, and nothing to warn about), then closes it.
   */
  async close(): Promise<void> {
    await this.current.truncate(this.current.size).catch(() => undefined);
    await this.current.close();
  }
}

import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { decodeFrame } from './entry-frame';
import { FileHandle, syncDirectory } from './file-handle';
import { OffsetIndexFile } from './offset-index-file';
import { recoverSegment, SegmentRecovery } from './segment-recovery';
import { CorruptionError, StorageError } from './storage.errors';
import { settleAll } from './settle-all';

export const DATA_FILE_EXTENSION = '.mmm';
export const INDEX_FILE_EXTENSION = '.idx';

/**
 * Data bytes of a segment written between fsyncs started in the background, off the commit path (RocksDB's
 * `bytes_per_sync`). Without them a hot topic's flush found up to 64 MiB of dirty pages (`DEFAULT_FLUSH_BYTES`) to
 * write at once, and the journal's commit fsyncs queued behind that burst on the same disk; a few MiB at a time
 * spreads the same writes over the interval.
 */
export const SEGMENT_SYNC_BEHIND_BYTES = 4 * 1024 * 1024;

/** Appended to the name of an index being rebuilt; it is renamed to `.idx` once complete. */
const REBUILDING_INDEX_SUFFIX = '.rebuilding';
/** Width of `Long.MAX_VALUE`, as the original broker names its files. */
const FILE_NAME_DIGITS = 19;

export function segmentFileName(startOffset: number, extension: string): string {
  return String(startOffset).padStart(FILE_NAME_DIGITS, '0') + extension;
}

/** The start offset named by a `.mmm` file, or undefined for any other file. */
export function parseSegmentFileName(name: string): number | undefined {
  const match = /^(\d{19})\.mmm$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/**
 * One segment of a topic's log: a `.mmm` data file and its `.idx` offset index. Entries are written here only
 * once the journal has made them durable, so a write goes to the page cache without an fsync; `sync` (the
 * journal's flush) makes the segment durable on its own, after which the journal may forget those entries.
 */
export class SegmentFile {
  /** Written since the last `sync`. */
  private dirty = false;
  /** Data bytes written since the last sync, or since the last fsync started behind the writes. */
  private unsyncedBytes = 0;

  private constructor(
    readonly startOffset: number,
    private readonly data: FileHandle,
    private readonly index: OffsetIndexFile,
    private dataEnd: number,
  ) {}

  /**
   * Opens or creates the segment starting at `startOffset` in `dir`, recovering it first. `nextStartOffset` is
   * given for a closed segment: where the segment after it starts, which tells how many entries this one holds.
   */
  static async open(
    dir: string,
    startOffset: number,
    nextStartOffset?: number,
  ): Promise<{ segment: SegmentFile; repairs: string[]; created?: boolean }> {
    const data = await FileHandle.open(join(dir, segmentFileName(startOffset, DATA_FILE_EXTENSION)), true);
    try {
      if (data.size === 0 && nextStartOffset === undefined) {
        // A new (or empty) tail segment: nothing to recover, and nothing to make durable yet — its entries are in
        // the journal until a flush syncs the files and their directory.
        const { index, tornBytes } = await OffsetIndexFile.open(join(dir, segmentFileName(startOffset, INDEX_FILE_EXTENSION)));
        const repairs = [
          ...(index.count > 0 ? [`dropped index entries 0..${index.count - 1}: the data holds no frame for them`] : []),
          ...(tornBytes > 0 ? [`cut a torn index tail of ${tornBytes} bytes (0 entries kept)`] : []),
        ];
        // Whatever the index holds without data is cut, a torn partial entry too: later entries must start at 0.
        if (index.count > 0 || tornBytes > 0) await index.truncate(0, true);
        return { segment: new SegmentFile(startOffset, data, index, 0), repairs, created: true };
      }
      const sealedEntries = nextStartOffset === undefined ? undefined : nextStartOffset - startOffset;
      const { index, recovery } = await SegmentFile.openIndexRecovering(dir, startOffset, data, sealedEntries);
      return { segment: new SegmentFile(startOffset, data, index, recovery.dataEnd), repairs: recovery.repairs };
    } catch (cause) {
      await data.close();
      throw new StorageError(`Cannot recover segment ${startOffset} in ${dir}`, { cause });
    }
  }

  /**
   * Opens the index and recovers both files. A missing index is rebuilt under a temporary name and renamed into
   * place once complete: were the broker to die halfway, an empty index would tell the next recovery that none of
   * the data had been committed.
   */
  private static async openIndexRecovering(
    dir: string,
    startOffset: number,
    data: FileHandle,
    sealedEntries: number | undefined,
  ): Promise<{ index: OffsetIndexFile; recovery: SegmentRecovery }> {
    const indexPath = join(dir, segmentFileName(startOffset, INDEX_FILE_EXTENSION));
    const indexExisted = await fs.stat(indexPath).then(
      () => true,
      () => false,
    );
    const openedPath = indexExisted ? indexPath : indexPath + REBUILDING_INDEX_SUFFIX;
    const { index, tornBytes } = await OffsetIndexFile.open(openedPath);
    let recovery: SegmentRecovery;
    try {
      recovery = await recoverSegment(data, index, { tornIndexBytes: tornBytes, indexExisted, sealedEntries });
    } catch (cause) {
      await index.close();
      throw cause;
    }
    if (indexExisted) return { index, recovery };
    await index.close();
    await fs.rename(openedPath, indexPath);
    await syncDirectory(dir);
    return { index: (await OffsetIndexFile.open(indexPath)).index, recovery };
  }

  get dataPath(): string {
    return this.data.path;
  }

  get indexPath(): string {
    return this.index.path;
  }

  /** Committed entries in this segment. */
  get count(): number {
    return this.index.count;
  }

  /** The absolute offset the next entry appended here would get. */
  get endOffset(): number {
    return this.startOffset + this.index.count;
  }

  /** Committed bytes of the data file; rotation compares it with the segment cap. */
  get size(): number {
    return this.dataEnd;
  }

  /** True when entries were written since the last `sync`. */
  get needsSync(): boolean {
    return this.dirty;
  }

  /**
   * Writes entry frames (already encoded, `starts` relative to `frames`) after the last entry and makes them
   * readable. Not durable until `sync`: the journal is. On failure both files are cut back to where they were.
   */
  async write(frames: Buffer, starts: readonly number[]): Promise<void> {
    const base = this.dataEnd;
    const count = this.index.count;
    this.dirty = true;
    try {
      await this.data.writeAt(frames, base);
      await this.index.append(starts.map((start) => base + start));
    } catch (cause) {
      await this.index.truncate(count).catch(() => undefined);
      await this.data.truncate(base).catch(() => undefined);
      throw new StorageError(`Writing ${starts.length} entries to segment ${this.startOffset} failed`, { cause });
    }
    this.dataEnd = base + frames.length;
    this.unsyncedBytes += frames.length;
    if (this.unsyncedBytes >= SEGMENT_SYNC_BEHIND_BYTES) {
      this.unsyncedBytes = 0;
      this.data.syncBehind();
    }
  }

  /**
   * The files may hold entries no fsync covered (written by a process that crashed, found intact by the journal's
   * replay): the next `sync` fsyncs them even though this process wrote nothing.
   */
  markUnsynced(): void {
    this.dirty = true;
  }

  /** Makes every entry written so far durable: the data first, then the index that points into it. */
  async sync(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    this.unsyncedBytes = 0;
    try {
      await this.data.sync();
      await this.index.sync();
    } catch (cause) {
      this.dirty = true;
      throw new StorageError(`Syncing segment ${this.startOffset} failed`, { cause });
    }
  }

  /** Cuts the segment back to its first `count` entries (data and index); durable at the next `sync`. */
  async truncate(count: number): Promise<void> {
    if (count >= this.index.count) return;
    this.dirty = true;
    const end = this.index.addressOf(count);
    await this.index.truncate(count);
    await this.data.truncate(end);
    this.dataEnd = end;
  }

  /** Reads and verifies the payload of entry `relative` (0-based within this segment). */
  async read(relative: number): Promise<Buffer> {
    const address = this.index.addressOf(relative);
    const end = relative + 1 < this.index.count ? this.index.addressOf(relative + 1) : this.dataEnd;
    const frame = await this.data.read(address, end - address);
    return decodeFrame(frame, this.startOffset + relative);
  }

  /**
   * Reads up to `count` entries from `relative` with one read; each is verified on its own, so a corrupt entry
   * comes back as its CorruptionError without hiding the others.
   */
  async readMany(relative: number, count: number): Promise<Array<Buffer | CorruptionError>> {
    const last = Math.min(this.index.count, relative + count) - 1;
    const start = this.index.addressOf(relative);
    const end = last + 1 < this.index.count ? this.index.addressOf(last + 1) : this.dataEnd;
    const bytes = await this.data.read(start, end - start);
    const entries: Array<Buffer | CorruptionError> = [];
    for (let entry = relative; entry <= last; entry++) {
      const from = this.index.addressOf(entry) - start;
      const to = (entry < last ? this.index.addressOf(entry + 1) : end) - start;
      try {
        entries.push(decodeFrame(bytes.subarray(from, to), this.startOffset + entry));
      } catch (error) {
        entries.push(error as CorruptionError);
      }
    }
    return entries;
  }

  async close(): Promise<void> {
    await settleAll([this.data.close(), this.index.close()], `Closing segment ${this.startOffset} failed`);
  }
}

import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { decodeFrame, encodeFrames } from './entry-frame';
import { FileHandle, syncDirectory } from './file-handle';
import { OffsetIndexFile } from './offset-index-file';
import { recoverSegment, SegmentRecovery } from './segment-recovery';
import { CorruptionError, StorageError } from './storage.errors';
import { settleAll } from './settle-all';

export const DATA_FILE_EXTENSION = '.mmm';
export const INDEX_FILE_EXTENSION = '.idx';
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

/** A group whose data is written and fsync'd, waiting for its index entries (the commit point). */
export interface StagedAppend {
  /** Byte address of each entry in the data file. */
  addresses: number[];
  /** Where the data file ends once this group is committed. */
  end: number;
}

/**
 * One segment of a topic's log: a `.mmm` data file and its `.idx` offset index. Appends are two-phase
 * (data + fsync, then index + fsync); readers only ever see entries whose index entry is durable. The phases
 * of consecutive groups may overlap — the next group's data while this group's index is written — as long as
 * each group's index phase follows its own data phase and the index phases run in order.
 */
export class SegmentFile {
  /** End of the data written so far, committed or staged. */
  private writtenEnd: number;

  private constructor(
    readonly startOffset: number,
    private readonly data: FileHandle,
    private readonly index: OffsetIndexFile,
    private dataEnd: number,
  ) {
    this.writtenEnd = dataEnd;
  }

  /**
   * Opens or creates the segment starting at `startOffset` in `dir`, recovering it first. `nextStartOffset` is
   * given for a closed segment: where the segment after it starts, which tells how many entries this one holds.
   */
  static async open(
    dir: string,
    startOffset: number,
    nextStartOffset?: number,
  ): Promise<{ segment: SegmentFile; repairs: string[] }> {
    const data = await FileHandle.open(join(dir, segmentFileName(startOffset, DATA_FILE_EXTENSION)), true);
    try {
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

  /**
   * Appends all payloads as one durable unit: one data write + fsync, then one index write + fsync. On any
   * failure both files are cut back to the last committed entry, so a failed append leaves no trace.
   */
  async append(payloads: readonly Buffer[]): Promise<void> {
    try {
      await this.commit(await this.stage(payloads));
    } catch (cause) {
      await this.rollback(cause);
      throw cause;
    }
  }

  /**
   * First phase: writes the payloads' frames after everything written so far and fsyncs the data file. Nothing
   * is visible yet. On failure the caller rolls back once no other phase of this segment is running.
   */
  async stage(payloads: readonly Buffer[]): Promise<StagedAppend> {
    const { bytes, starts } = encodeFrames(payloads);
    const base = this.writtenEnd;
    // Claimed before the write, so the next group's data goes after this one's even while this one is written.
    this.writtenEnd = base + bytes.length;
    try {
      await this.data.writeAt(bytes, base);
      await this.data.sync();
    } catch (cause) {
      throw new StorageError(`Writing ${payloads.length} entries failed; nothing of them was committed`, { cause });
    }
    return { addresses: starts.map((start) => base + start), end: base + bytes.length };
  }

  /** Second phase, the commit point: appends the group's index entries and fsyncs the index. In stage order. */
  async commit(staged: StagedAppend): Promise<void> {
    try {
      await this.index.appendDurably(staged.addresses);
    } catch (cause) {
      throw new StorageError(`Indexing ${staged.addresses.length} entries failed; nothing of them was committed`, { cause });
    }
    this.dataEnd = staged.end;
  }

  /** Cuts both files back to the last committed entry, dropping every staged group. */
  async rollback(cause: unknown): Promise<void> {
    const committed = this.index.count;
    try {
      await this.data.truncate(this.dataEnd);
      this.writtenEnd = this.dataEnd;
      await this.data.sync();
      await this.index.truncate(committed);
    } catch (rollbackError) {
      throw new StorageError('Appending failed and cutting the segment back to its last commit failed too', {
        cause: new AggregateError([cause, rollbackError]),
      });
    }
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

import { promises as fs } from 'node:fs';
import { descriptorPool } from './descriptor-pool';
import { syncDirectory } from './file-handle';
import { join } from 'node:path';
import { DATA_FILE_EXTENSION, parseSegmentFileName, SegmentFile, segmentFileName } from './segment-file';
import { CorruptionError, StorageError } from './storage.errors';
import { settleAll } from './settle-all';

/** A repair recovery made to one segment, for the log. */
export interface SegmentRepair {
  startOffset: number;
  repairs: string[];
}

/** A closed segment as retention judges it. */
export interface ClosedSegment {
  startOffset: number;
  /** One past its last entry: where the next segment starts. */
  endOffset: number;
  /** Bytes of its data file. */
  bytes: number;
  dataPath: string;
}

/**
 * The ordered segments of one topic. Offsets are absolute and dense; only the tail segment is written, and it
 * rotates once its data reaches `maxBytes` (a soft cap: a group is never split across segments). Writes reach
 * the page cache only; `sync` (the journal's flush) makes them durable.
 */
export class SegmentFileChain {
  private directoryDirty = false;

  private constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly segments: SegmentFile[],
  ) {}

  static async open(dir: string, maxBytes: number): Promise<{ chain: SegmentFileChain; repairs: SegmentRepair[] }> {
    // Listing a directory holds a descriptor for a moment: it counts against the budget like any file.
    const names = await descriptorPool.withDescriptor(() => fs.readdir(dir));
    await removeOrphanIndexes(dir, names);
    const starts = names
      .map(parseSegmentFileName)
      .filter((start): start is number => start !== undefined)
      .sort((a, b) => a - b);
    if (starts.length === 0) starts.push(0);
    const segments: SegmentFile[] = [];
    const repairs: SegmentRepair[] = [];
    let created = false;
    try {
      for (const [i, start] of starts.entries()) {
        const opened = await SegmentFile.open(dir, start, starts[i + 1]);
        segments.push(opened.segment);
        created ||= opened.created === true;
        if (opened.repairs.length > 0) repairs.push({ startOffset: start, repairs: opened.repairs });
      }
    } catch (cause) {
      await Promise.allSettled(segments.map((segment) => segment.close()));
      throw cause;
    }
    for (let i = 1; i < segments.length; i++) {
      const previous = segments[i - 1];
      if (previous.endOffset !== segments[i].startOffset) {
        repairs.push({
          startOffset: previous.startOffset,
          repairs: [
            `ends at offset ${previous.endOffset} but the next segment starts at ${segments[i].startOffset};` +
              ' offsets in between are skipped at delivery',
          ],
        });
      }
    }
    const chain = new SegmentFileChain(dir, maxBytes, segments);
    // New files reach the directory durably at the first flush (the journal holds their entries until then).
    chain.directoryDirty = created;
    return { chain, repairs };
  }

  private get tail(): SegmentFile {
    return this.segments[this.segments.length - 1];
  }

  /** The offset the next appended entry gets. */
  get tailOffset(): number {
    return this.tail.endOffset;
  }

  /** The offset of the oldest entry kept. */
  get startOffset(): number {
    return this.segments[0].startOffset;
  }

  /** Bytes of the data files, frames included. */
  get byteSize(): number {
    return this.segments.reduce((sum, segment) => sum + segment.size, 0);
  }

  get segmentCount(): number {
    return this.segments.length;
  }

  /**
   * Writes entry frames (encoded, `starts` relative to `frames`) at the tail, rotating first when the tail is
   * full. Not durable until `sync`; the journal holds them until then.
   */
  async write(frames: Buffer, starts: readonly number[]): Promise<void> {
    if (this.tail.size >= this.maxBytes && this.tail.count > 0) await this.rotate();
    await this.tail.write(frames, starts);
  }

  /** True when something was written (or a segment created or removed) since the last `sync`. */
  get needsSync(): boolean {
    return this.directoryDirty || this.segments.some((segment) => segment.needsSync);
  }

  /** Something was created in the topic's directory (its `checkpoints/`): the next `sync` fsyncs the directory. */
  markDirectoryDirty(): void {
    this.directoryDirty = true;
  }

  /** The segments holding `offset` and after may hold entries no fsync covered: the next `sync` fsyncs them. */
  markUnsyncedFrom(offset: number): void {
    for (const segment of this.segments) if (segment.endOffset > offset) segment.markUnsynced();
  }

  /** Makes everything written so far durable; returns the number of fsyncs it took. */
  async sync(): Promise<number> {
    let fsyncs = 0;
    // A copy: retention may remove the oldest segments meanwhile, which must not shift the ones still to sync.
    for (const segment of [...this.segments]) {
      if (!segment.needsSync) continue;
      await segment.sync();
      fsyncs += 2;
    }
    if (this.directoryDirty) {
      this.directoryDirty = false;
      try {
        await syncDirectory(this.dir);
      } catch (cause) {
        this.directoryDirty = true;
        throw new StorageError(`Cannot make the segments of ${this.dir} durable`, { cause });
      }
      fsyncs++;
    }
    return fsyncs;
  }

  /**
   * Cuts the log back so that `offset` is the next entry appended: segments starting past it are removed, the one
   * holding it is cut. Durable at the next `sync`. Only for what the journal still holds.
   */
  async truncateTo(offset: number): Promise<void> {
    while (this.segments.length > 1 && this.tail.startOffset >= offset) await this.removeTail();
    if (this.tail.startOffset <= offset) {
      await this.tail.truncate(offset - this.tail.startOffset);
      return;
    }
    // Even the first segment starts past `offset` (the ones before it were lost): the log restarts at `offset`.
    await this.removeTail();
    this.segments.push((await SegmentFile.open(this.dir, offset)).segment);
    this.directoryDirty = true;
  }

  private async removeTail(): Promise<void> {
    const removed = this.segments.pop() as SegmentFile;
    await removed.close();
    await fs.rm(removed.dataPath, { force: true });
    await fs.rm(removed.indexPath, { force: true });
    this.directoryDirty = true;
  }

  /** Every segment but the tail, oldest first: the only ones retention may delete. */
  closedSegments(): ClosedSegment[] {
    return this.segments.slice(0, -1).map((segment) => ({
      startOffset: segment.startOffset,
      endOffset: segment.endOffset,
      bytes: segment.size,
      dataPath: segment.dataPath,
    }));
  }

  /**
   * Deletes the oldest segment (never the tail): its data file first — from then on recovery no longer sees the
   * segment, and the chain starts at the next one —, then its index, then the directory is fsync'd, so a later
   * removal can never reach the disk before this one and the chain never gets a gap. A crash in between leaves an
   * orphan index, which the next {@link open} removes.
   */
  async removeHead(): Promise<ClosedSegment> {
    if (this.segments.length < 2) throw new StorageError(`The tail segment of ${this.dir} is never removed`);
    const [head] = this.closedSegments();
    const removed = this.segments.shift() as SegmentFile;
    await removed.close().catch(() => undefined);
    await fs.rm(removed.dataPath, { force: true });
    await fs.rm(removed.indexPath, { force: true });
    await syncDirectory(this.dir);
    return head;
  }

  /** Closes and reopens the tail segment so recovery re-reads what is really on disk after a write failure. */
  async reopenTail(): Promise<void> {
    const tail = this.tail;
    await tail.close().catch(() => undefined);
    const { segment } = await SegmentFile.open(this.dir, tail.startOffset);
    this.segments[this.segments.length - 1] = segment;
  }

  private async rotate(): Promise<void> {
    const { segment } = await SegmentFile.open(this.dir, this.tail.endOffset);
    this.segments.push(segment);
    // The new files' directory entries reach the disk at the next sync; until then the journal holds their entries.
    this.directoryDirty = true;
  }

  /**
   * Reads the committed entry at `offset`: null past the tail, a CorruptionError for a damaged entry or an offset
   * a damaged segment lost, so delivery can skip it.
   */
  async read(offset: number): Promise<Buffer | null> {
    if (offset >= this.tailOffset) return null;
    const segment = this.segmentFor(offset);
    if (!segment || offset >= segment.endOffset) {
      throw new CorruptionError(`Offset ${offset} is missing from the log (lost to segment damage)`, offset);
    }
    return segment.read(offset - segment.startOffset);
  }

  /**
   * Reads up to `max` committed entries from `offset`, stopping at the tail or at the end of a segment. A
   * damaged entry comes back as its CorruptionError, in place.
   */
  async readMany(offset: number, max: number): Promise<Array<Buffer | CorruptionError>> {
    if (offset >= this.tailOffset || max <= 0) return [];
    const segment = this.segmentFor(offset);
    if (!segment || offset >= segment.endOffset) {
      return [new CorruptionError(`Offset ${offset} is missing from the log (lost to segment damage)`, offset)];
    }
    return segment.readMany(offset - segment.startOffset, Math.min(max, segment.endOffset - offset));
  }

  private segmentFor(offset: number): SegmentFile | undefined {
    let low = 0;
    let high = this.segments.length - 1;
    let found: SegmentFile | undefined;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (this.segments[middle].startOffset <= offset) {
        found = this.segments[middle];
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found;
  }

  async close(): Promise<void> {
    await settleAll(
      this.segments.map((segment) => segment.close()),
      `Closing the segments in ${this.dir} failed`,
    );
  }
}

/**
 * Removes `.idx` files whose `.mmm` is gone: left by a crash between the two unlinks of {@link SegmentFileChain.removeHead}
 * (a segment is created data file first, so a new segment never has an index without its data).
 */
async function removeOrphanIndexes(dir: string, names: readonly string[]): Promise<void> {
  const present = new Set(names);
  const orphans = names.filter((name) => {
    const match = /^(\d{19})\.idx$/.exec(name);
    return match !== null && !present.has(segmentFileName(Number(match[1]), DATA_FILE_EXTENSION));
  });
  for (const name of orphans) await fs.rm(join(dir, name), { force: true });
  if (orphans.length > 0) await syncDirectory(dir);
}

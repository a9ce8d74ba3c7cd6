import { closeSync, ftruncateSync, openSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CHECKPOINTS_DIR } from '../format/checkpoint-format';
import { encodeRecord, JOURNAL_SALT_BYTES } from '../format/journal-format';
import { encodeFrame, encodeIndexEntry, INDEX_ENTRY_BYTES } from '../format/segment-format';
import type { Random } from '../random';
import type { DurableFloors, FileFloor } from './durable-floors';

/** What one simulated power loss did to the files. */
export interface PowerLossCut {
  filesCut: number;
  bytesDropped: number;
  zeroFilled: number;
  garbageFilled: number;
  /** Segments wholly past the durable point that were deleted (both files). */
  segmentsDeleted: number;
  /**
   * Topics losing their first segment, so everything of theirs is past the durable point (created since the last
   * flush): their `checkpoints/` went too, as a directory entry no fsync covered.
   */
  checkpointDirsDeleted: number;
  /** Journals whose last record was cut into or dropped / kept because it was durable. */
  lastRecordCut: number;
  lastRecordKept: number;
}

export function emptyCut(): PowerLossCut {
  return {
    filesCut: 0,
    bytesDropped: 0,
    zeroFilled: 0,
    garbageFilled: 0,
    segmentsDeleted: 0,
    checkpointDirsDeleted: 0,
    lastRecordCut: 0,
    lastRecordKept: 0,
  };
}

export function addCut(total: PowerLossCut, cut: PowerLossCut): void {
  for (const key of Object.keys(total) as Array<keyof PowerLossCut>) total[key] += cut[key];
}

type Fill = 'zero' | 'garbage' | 'plausible';

/** Share of deletable segments (wholly past the durable point) deleted instead of cut. */
const DELETE_SHARE = 0.3;
/** Forged records at most, in a plausible journal fill. */
const MAX_FORGED_RECORDS = 3;

/**
 * Simulates a power cut after a SIGKILL, from the durable floors (durable-floors.ts): every file with bytes past
 * its floor is cut back to a random length at or after it (half the time exactly to it), and may keep part of its
 * old length with the lost region zero-filled, garbage-filled or filled with plausible-looking content: index
 * entries pointing at the next frame's address, into the data, or past it; intact entry frames of messages never
 * published; journal records of the right shape and sequence whose CRC is computed with another file's salt (a
 * stale block of an older journal file). Segments wholly past the durable point may be deleted instead, always
 * from one segment to the end of the topic: file creations reach the disk in the order they were made (as ext4's and
 * XFS's metadata journals keep them), so a segment never survives one created before it.
 */
export function cutToFloors(floors: DurableFloors, random: Random): PowerLossCut {
  const cut = emptyCut();
  const deleted = new Set<string>();
  /** Topic directories losing their deletable segments from one on: later ones go too. */
  const losing = new Set<string>();
  for (const file of floors.files) {
    if (!file.deletable || file.kind !== 'data') continue;
    if (!losing.has(dirname(file.path))) {
      if (!random.chance(DELETE_SHARE)) continue;
      losing.add(dirname(file.path));
    }
    const index = floors.files.find((other) => other.kind === 'index' && other.path === indexPathOf(file.path));
    for (const gone of [file, index]) {
      if (!gone) continue;
      rmSync(gone.path, { force: true });
      deleted.add(gone.path);
      cut.bytesDropped += gone.size;
    }
    cut.segmentsDeleted++;
    // Nothing of a topic whose first segment is past the durable point was flushed: neither its checkpoints' files
    // nor their directory entries need have reached the disk (the journal holds their values).
    if (/(^|\/)0{19}\.mmm$/.test(file.path)) {
      rmSync(join(dirname(file.path), CHECKPOINTS_DIR), { recursive: true, force: true });
      cut.checkpointDirsDeleted++;
    }
  }
  for (const file of floors.files) {
    if (deleted.has(file.path)) continue;
    const data = file.kind === 'index' ? floors.files.find((other) => other.path === dataPathOf(file.path)) : undefined;
    const plausible = (): Buffer[] => {
      if (file.kind === 'journal') return forgedRecords(floors, random);
      if (file.kind === 'index') return [encodeIndexEntry(plausibleAddress(data, random))];
      return [forgedFrame(random)];
    };
    cutFile(file, random, plausible, cut);
  }
  if (floors.lastRecord) {
    if (floors.lastRecordDurable) cut.lastRecordKept++;
    else cut.lastRecordCut++;
  }
  return cut;
}

/** Keeps at least `floor` bytes, then makes the file any length between what it keeps and its old size. */
function cutFile(file: FileFloor, random: Random, plausible: () => Buffer[], cut: PowerLossCut): void {
  if (file.floor >= file.size) return;
  const kept = random.chance(0.5) ? file.floor : random.int(file.floor, file.size);
  const length = random.chance(0.5) ? kept : random.int(kept, file.size);
  const fill: Fill = random.pick(['zero', 'garbage', 'plausible'] as const);
  const region = length - kept;
  const fd = openSync(file.path, 'r+');
  try {
    ftruncateSync(fd, kept);
    if (region > 0) {
      writeSync(fd, filler(fill, file, kept, length, random, plausible), 0, region, kept);
      if (fill === 'zero') cut.zeroFilled++;
      else cut.garbageFilled++;
    }
  } finally {
    closeSync(fd);
  }
  cut.filesCut++;
  cut.bytesDropped += file.size - kept;
}

/** The `to - from` bytes of the lost region; plausible index content sits on the index's 8-byte slots. */
function filler(fill: Fill, file: FileFloor, from: number, to: number, random: Random, plausible: () => Buffer[]): Buffer {
  const size = to - from;
  if (fill === 'zero') return Buffer.alloc(size);
  if (fill === 'garbage') return random.bytes(size);
  const skip = file.kind === 'index' ? from % INDEX_ENTRY_BYTES : 0;
  const chunks: Buffer[] = [];
  for (let length = 0; length < skip + size;) {
    const more = plausible();
    chunks.push(...more);
    length += more.reduce((sum, chunk) => sum + chunk.length, 0);
  }
  return Buffer.concat(chunks).subarray(skip, skip + size);
}

/** An address a torn index entry could hold: the data floor (where the next frame goes), inside the data, past it. */
function plausibleAddress(data: FileFloor | undefined, random: Random): number {
  if (!data) return random.int(0, 1 << 20);
  return random.pick([data.floor, random.int(0, data.size), data.size + random.int(0, 64)]);
}

/** Records that continue the journal's sequence, CRC'd with a salt that is not this file's. */
function forgedRecords(floors: DurableFloors, random: Random): Buffer[] {
  const last = floors.lastRecord;
  const seq = (last?.seq ?? 0) + (floors.lastRecordDurable ? 1 : 0);
  const ops = last?.ops ?? [{ kind: 'flushed' as const, seq: 0 }];
  const salt = random.bytes(JOURNAL_SALT_BYTES);
  return Array.from({ length: random.int(1, MAX_FORGED_RECORDS) }, (_, i) => encodeRecord(salt, seq + i, ops));
}

/** An intact entry frame holding a message envelope that was never published. */
function forgedFrame(random: Random): Buffer {
  const id = `forged-${random.int(0, 2 ** 31)}`;
  return encodeFrame(
    Buffer.from(`{"id":"${id}","topic":"forged","publishedAt":0,"headers":{},"content":"${'g'.repeat(random.int(0, 200))}"}`),
  );
}

function indexPathOf(dataPath: string): string {
  return dataPath.replace(/\.mmm$/, '.idx');
}

function dataPathOf(indexPath: string): string {
  return indexPath.replace(/\.idx$/, '.mmm');
}

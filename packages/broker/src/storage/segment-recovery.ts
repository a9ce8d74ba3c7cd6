import { FileHandle } from './file-handle';
import { FrameProbe } from './frame-probe';
import { OffsetIndexFile } from './offset-index-file';
import { IsolatedEntry, ScannedDamage, walkSegment } from './segment-walk';

/** What recovery found and did to one segment, in words an operator can act on. */
export interface SegmentRecovery {
  /** Byte length of the data file's committed part. */
  dataEnd: number;
  repairs: string[];
}

/** What opening a segment's files found before recovery. */
export interface SegmentOnDisk {
  /** Bytes past the index's last whole entry. */
  tornIndexBytes: number;
  indexExisted: boolean;
  /**
   * For a closed segment (another one follows it), the number of entries it holds: the next segment was only
   * created once every entry of this one was committed. Undefined for the tail segment.
   */
  sealedEntries?: number;
}

/** Repaired index entries listed by name in a report; the rest are counted. */
const LISTED_CORRECTIONS = 3;

/**
 * Brings a segment's `.mmm` and `.idx` back to a consistent state after a crash or damage. Every entry is checked
 * against the data (see {@link walkSegment}): a wrong index address is corrected from the frames, a damaged frame
 * keeps its offset and is isolated, and only bytes past the last committed entry of the tail segment are cut: there
 * the index's entry count is the commit record, and data past that many frames was never acknowledged.
 */
export async function recoverSegment(data: FileHandle, index: OffsetIndexFile, found: SegmentOnDisk): Promise<SegmentRecovery> {
  if (found.tornIndexBytes > 0) await index.truncate(index.count, true);
  const recorded = Array.from({ length: index.count }, (_, entry) => index.addressOf(entry));
  const diagnosis = await diagnoseSegment(new FrameProbe(data), recorded, found);
  await rewriteIndex(index, recorded, diagnosis.addresses);
  if (diagnosis.cutDataTo !== undefined) {
    await data.truncate(diagnosis.cutDataTo);
    await data.sync();
  }
  return { dataEnd: diagnosis.dataEnd, repairs: diagnosis.repairs };
}

/** What {@link recoverSegment} would do to a segment, decided without writing anything. */
export interface SegmentDiagnosis extends SegmentRecovery {
  /** The data address of every entry the segment keeps: what the index must hold. */
  addresses: number[];
  /** Where the data file is cut (the tail segment's unacknowledged bytes), if anywhere. */
  cutDataTo?: number;
}

/**
 * Walks a segment's data against its index's `recorded` addresses (whole entries only) and says what recovery
 * repairs, in the words of its log line; reads only. `mmmq verify` reports the same findings offline.
 */
export async function diagnoseSegment(probe: FrameProbe, recorded: readonly number[], found: SegmentOnDisk): Promise<SegmentDiagnosis> {
  const repairs: string[] = [];
  if (found.tornIndexBytes > 0) {
    repairs.push(`cut a torn index tail of ${found.tornIndexBytes} bytes (${recorded.length} entries kept)`);
  }
  if (!found.indexExisted && probe.dataSize > 0) repairs.push('the index file was missing');
  const limit = found.sealedEntries ?? (found.indexExisted ? recorded.length : Number.POSITIVE_INFINITY);
  const walk = await walkSegment(probe, recorded, limit);
  repairs.push(
    ...describeIndexRepairs(recorded, walk.addresses, limit),
    ...describeIsolated(walk.isolated),
    ...walk.scanned.map(describeScanned),
  );
  let cutDataTo: number | undefined;
  if (probe.dataSize > walk.end && found.sealedEntries !== undefined) {
    // Nothing is ever appended to a closed segment, so bytes the walk could not place are left for forensics.
    repairs.push(`left ${probe.dataSize - walk.end} bytes past the last entry in place: they hold no entry`);
  } else if (probe.dataSize > walk.end) {
    repairs.push(
      found.indexExisted
        ? `removed ${probe.dataSize - walk.end} bytes of unacknowledged data past the last indexed entry`
        : // without an index the walk scanned them byte by byte: no intact frame starts anywhere in them
          `removed ${probe.dataSize - walk.end} bytes of data that hold no complete entry`,
    );
    cutDataTo = walk.end;
  }
  return { dataEnd: walk.end, repairs, addresses: walk.addresses, cutDataTo };
}

/**
 * Makes the index file hold exactly `addresses`: entries are rewritten in place from the first that differs, and
 * only then are surplus entries cut. The index never holds fewer entries than the data's committed frames, even
 * if the broker dies halfway, because for the tail segment that count is what the next recovery keeps.
 */
async function rewriteIndex(index: OffsetIndexFile, recorded: readonly number[], addresses: readonly number[]): Promise<void> {
  let same = 0;
  while (same < recorded.length && same < addresses.length && recorded[same] === addresses[same]) same++;
  if (same < addresses.length) await index.replaceDurably(same, addresses.slice(same));
  if (recorded.length > addresses.length) await index.truncate(addresses.length, true);
}

function describeIndexRepairs(recorded: readonly number[], addresses: readonly number[], limit: number): string[] {
  const repairs: string[] = [];
  const corrected = correctedEntries(recorded, addresses);
  const describe = (entry: number) => `it gave ${recorded[entry]}, the frame is at ${addresses[entry]}`;
  if (corrected.length === 1) {
    repairs.push(`corrected index entry ${corrected[0]} from the data (${describe(corrected[0])})`);
  } else if (corrected.length > 1) {
    const listed = corrected.slice(0, LISTED_CORRECTIONS).map((entry) => `entry ${entry}: ${describe(entry)}`);
    if (corrected.length > LISTED_CORRECTIONS) listed.push('…');
    repairs.push(`corrected ${corrected.length} index entries from the data (${listed.join('; ')})`);
  }
  const withoutFrames = Math.min(recorded.length, limit);
  if (withoutFrames > addresses.length) {
    repairs.push(
      withoutFrames - addresses.length === 1
        ? `dropped index entry ${addresses.length}: the data holds no frame for it`
        : `dropped index entries ${addresses.length}..${withoutFrames - 1}: the data holds no frame for them`,
    );
  }
  if (recorded.length > limit) {
    repairs.push(`dropped index entries ${limit}..${recorded.length - 1}: the next segment starts at their offsets`);
  }
  if (addresses.length > recorded.length) {
    repairs.push(`rebuilt ${addresses.length - recorded.length} index entries from the data`);
  }
  return repairs;
}

/** The entries both the index and the walk have, at different addresses. */
function correctedEntries(recorded: readonly number[], addresses: readonly number[]): number[] {
  const corrected: number[] = [];
  for (let entry = 0; entry < Math.min(recorded.length, addresses.length); entry++) {
    if (recorded[entry] !== addresses[entry]) corrected.push(entry);
  }
  return corrected;
}

/** One line per run of consecutive isolated entries. */
function describeIsolated(isolated: readonly IsolatedEntry[]): string[] {
  const repairs: string[] = [];
  for (let start = 0; start < isolated.length;) {
    let end = start;
    while (end + 1 < isolated.length && isolated[end + 1].entry === isolated[end].entry + 1) end++;
    const first = isolated[start];
    if (start === end) {
      const what = first.checksumMismatch ? 'fails its checksum' : 'is damaged';
      repairs.push(`entry ${first.entry} ${what}; it keeps its offset and is skipped at delivery`);
    } else {
      const run = `entries ${first.entry}..${isolated[end].entry}`;
      repairs.push(`${run} are damaged; they keep their offsets and are skipped at delivery`);
    }
    start = end + 1;
  }
  return repairs;
}

function describeScanned({ entry, from, to }: ScannedDamage): string {
  return `found the next intact entry ${to - from} bytes after damaged data at byte ${from}; the damaged bytes keep one offset (entry ${entry})`;
}

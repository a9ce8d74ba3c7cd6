import { FRAME_HEADER_BYTES, frameChecksumMatches, frameSizeAt } from './entry-frame';
import { FileHandle } from './file-handle';
import { OffsetIndexFile } from './offset-index-file';

/** What recovery found and did to one segment, in words an operator can act on. */
export interface SegmentRecovery {
  /** Byte length of the data file's committed part. */
  dataEnd: number;
  repairs: string[];
}

/**
 * Brings a segment's `.mmm` and `.idx` back to a consistent state after a crash or damage. The index is the
 * source of truth: data past the last indexed entry was never acknowledged and is cut. Only a missing or
 * invalid index is rebuilt from the data, because then the damage, not a crash, lost the commit records.
 */
export async function recoverSegment(
  data: FileHandle,
  index: OffsetIndexFile,
  tornIndexBytes: number,
  indexExisted: boolean,
): Promise<SegmentRecovery> {
  const repairs: string[] = [];
  if (tornIndexBytes > 0) {
    await index.truncate(index.count);
    repairs.push(`cut a torn index tail of ${tornIndexBytes} bytes (${index.count} entries kept)`);
  }
  if (!indexExisted && data.size > 0) {
    repairs.push('the index file was missing');
    return rebuildFrom(0, data, index, repairs);
  }
  const valid = validPrefix(index, data.size);
  if (valid < index.count) {
    repairs.push(`index entries ${valid}..${index.count - 1} were invalid`);
    await index.truncate(valid);
    return rebuildFrom(valid === 0 ? 0 : index.addressOf(valid - 1), data, index, repairs, valid > 0);
  }
  const dataEnd = await lastEntryEnd(data, index, repairs);
  if (data.size > dataEnd) {
    repairs.push(`removed ${data.size - dataEnd} bytes of unacknowledged data past the last indexed entry`);
    await data.truncate(dataEnd);
    await data.sync();
  }
  return { dataEnd, repairs };
}

/** Index entries are valid while they start at 0, strictly grow by at least one frame and point inside the data. */
function validPrefix(index: OffsetIndexFile, dataSize: number): number {
  let previous = -1;
  for (let i = 0; i < index.count; i++) {
    const address = index.addressOf(i);
    const ordered = i === 0 ? address === 0 : address > previous + FRAME_HEADER_BYTES;
    if (!ordered || address >= dataSize) return i;
    previous = address;
  }
  return index.count;
}

async function lastEntryEnd(data: FileHandle, index: OffsetIndexFile, repairs: string[]): Promise<number> {
  if (index.count === 0) return 0;
  const address = index.addressOf(index.count - 1);
  const available = data.size - address;
  const frame = await data.read(address, available);
  const size = frameSizeAt(frame, 0);
  if (size < 0 || size > available) {
    // Damage, not a crash: the data was fsync'd before its index entry. Keep the offset, isolate the entry.
    repairs.push(`entry ${index.count - 1} is damaged; it keeps its offset and is skipped at delivery`);
    return data.size;
  }
  if (!frameChecksumMatches(frame, 0, size)) {
    repairs.push(`entry ${index.count - 1} fails its checksum; it keeps its offset and is skipped at delivery`);
  }
  return address + size;
}

/**
 * Re-indexes the data from `start` by walking CRC-checked frames. A frame failing its checksum is stepped over
 * (and isolated later) only when a valid frame follows it; otherwise the scan ends there.
 */
async function rebuildFrom(
  start: number,
  data: FileHandle,
  index: OffsetIndexFile,
  repairs: string[],
  startIsIndexed = false,
): Promise<SegmentRecovery> {
  const bytes = await data.readAll();
  const addresses: number[] = [];
  let position = start;
  if (startIsIndexed) {
    const size = frameSizeAt(bytes, position);
    position = size > 0 && position + size <= bytes.length ? position + size : position;
    if (position === start) await index.truncate(index.count - 1);
  }
  let isolated = 0;
  for (;;) {
    const size = frameSizeAt(bytes, position);
    if (size < 0 || position + size > bytes.length) break;
    if (!frameChecksumMatches(bytes, position, size)) {
      if (!isValidFrame(bytes, position + size)) break;
      isolated++;
    }
    addresses.push(position);
    position += size;
  }
  await index.appendDurably(addresses);
  repairs.push(
    `rebuilt ${addresses.length} index entries from the data` + (isolated ? ` (${isolated} corrupt, isolated)` : ''),
  );
  if (bytes.length > position) {
    repairs.push(`removed ${bytes.length - position} bytes of data that hold no complete entry`);
    await data.truncate(position);
    await data.sync();
  }
  return { dataEnd: position, repairs };
}

function isValidFrame(bytes: Buffer, position: number): boolean {
  const size = frameSizeAt(bytes, position);
  return size > 0 && position + size <= bytes.length && frameChecksumMatches(bytes, position, size);
}

import { FrameCheck, FrameProbe } from './frame-probe';

/** An entry that keeps its offset although its frame is damaged: reading it fails, and delivery skips it. */
export interface IsolatedEntry {
  entry: number;
  /** The frame's length field fits the data, but its checksum does not match. */
  checksumMismatch: boolean;
}

/**
 * Damaged bytes, with no index entry to place them by, that the walk found an intact frame after by scanning byte by
 * byte: they become one isolated entry.
 */
export interface ScannedDamage {
  entry: number;
  /** Where the damaged bytes start. */
  from: number;
  /** Where the next intact frame starts. */
  to: number;
}

/** The entries a segment's data holds, as a walk over its frames found them. */
export interface SegmentWalk {
  /** The data address of every entry the segment keeps, in offset order. */
  addresses: number[];
  isolated: IsolatedEntry[];
  scanned: ScannedDamage[];
  /** Where the last kept entry ends: nothing past it was committed. */
  end: number;
}

/**
 * Walks the frames of a segment's data from its first byte, entry by entry, with the index's addresses
 * (`recorded`, possibly damaged) as a guide, never as the truth:
 *
 * - an intact frame (length field and CRC32C) at the walk's position is the next entry, whatever the index says
 *   about it: consecutive entries are adjacent frames;
 * - a damaged frame is the next entry too, isolated, when an intact frame follows where its index entry's
 *   successor or its own length field says; when nothing intact follows, it is kept only if the index points
 *   exactly at it (the index is only written after the data is durable, so a damaged frame the index vouches for
 *   is damage, while anything else past the last intact frame is a crash's unacknowledged tail);
 * - intact frames lying end to end from the damage up to that next intact frame are the entries just before it;
 * - with no such next frame, the first run of intact frames after the damage that is exactly as long as the entries
 *   left to place (below `limit`) is those entries;
 * - a damaged frame past the index's last entry (a missing or short index) that neither evidence above places is
 *   scanned past byte by byte: the bytes up to the next intact frame become one isolated entry; with no intact frame
 *   after it, the walk ends there;
 * - at most `limit` entries are taken: the index's entry count for the tail segment (frames past it were never
 *   acknowledged), or the count the next segment's start offset implies for a closed one.
 *
 * So offsets never shift, no frame an index entry covered is dropped, and a wrong address is corrected rather
 * than trusted.
 */
export async function walkSegment(probe: FrameProbe, recorded: readonly number[], limit: number): Promise<SegmentWalk> {
  const addresses: number[] = [];
  const isolated: IsolatedEntry[] = [];
  const scanned: ScannedDamage[] = [];
  const resync = new Resync(probe, recorded, limit);
  let position = 0;
  while (addresses.length < limit && position < probe.dataSize) {
    const entry = addresses.length;
    const frame = probe.checkBuffered(position) ?? (await probe.check(position));
    if (frame.valid) {
      addresses.push(position);
      position += frame.size;
      continue;
    }
    const next = await resync.after(entry, position, frame);
    if (next) {
      isolated.push({ entry, checksumMismatch: frame.size > 0 });
      addresses.push(position);
      // Entries between the damaged frame and the next intact one: intact frames lying end to end up to it are its
      // predecessors; the frames of the others cannot be told apart, so each keeps its offset at the index's address
      // when that lies in between, else as an empty (unreadable) entry.
      const between = next.entry - entry - 1;
      const run = between > 0 ? await runEndingAt(probe, position + 1, next.address) : [];
      const placed = run.length <= between ? run : [];
      let previous = position;
      for (let skipped = entry + 1; skipped < next.entry - placed.length; skipped++) {
        const guess = recorded[skipped];
        if (guess > previous && guess < (placed[0] ?? next.address)) previous = guess;
        isolated.push({ entry: skipped, checksumMismatch: false });
        addresses.push(previous);
      }
      addresses.push(...placed);
      position = next.address;
      continue;
    }
    const left = limit - entry - 1;
    if (entry < recorded.length && left > 0) {
      // No index entry after this one leads to an intact frame, but the entries left may still lie end to end after
      // the damage: a run of exactly as many intact frames as entries are left is them.
      const start = await probe.findIntactFrame(position + 1);
      const run = start === undefined ? undefined : await intactRun(probe, start, probe.dataSize, left + 1);
      if (run?.addresses.length === left) {
        isolated.push({ entry, checksumMismatch: frame.size > 0 });
        addresses.push(position, ...run.addresses);
        position = run.end;
        continue;
      }
    }
    // Within the index's count its own entries were the evidence; past it (the walk is still under `limit`), the
    // data is all there is.
    const found = entry >= recorded.length ? await probe.findIntactFrame(position + 1) : undefined;
    if (found !== undefined) {
      isolated.push({ entry, checksumMismatch: frame.size > 0 });
      scanned.push({ entry, from: position, to: found });
      addresses.push(position);
      position = found;
      continue;
    }
    if (recorded[entry] !== position) break;
    isolated.push({ entry, checksumMismatch: frame.size > 0 });
    addresses.push(position);
    position = frame.size > 0 ? position + frame.size : probe.dataSize;
  }
  return { addresses, isolated, scanned, end: position };
}

/** The intact frames lying end to end from `start` (at most `most` of them) and where they end, before `end`. */
async function intactRun(probe: FrameProbe, start: number, end: number, most: number): Promise<{ addresses: number[]; end: number }> {
  const addresses: number[] = [];
  let position = start;
  while (position < end && addresses.length < most) {
    const frame = await probe.check(position);
    if (!frame.valid || position + frame.size > end) break;
    addresses.push(position);
    position += frame.size;
  }
  return { addresses, end: position };
}

/** The first run of intact frames after `from` that lie end to end up to exactly `end`; empty when none does. */
async function runEndingAt(probe: FrameProbe, from: number, end: number): Promise<number[]> {
  for (let start = await probe.findIntactFrame(from, end); start !== undefined;) {
    const run = await intactRun(probe, start, end, Number.POSITIVE_INFINITY);
    if (run.end === end) return run.addresses;
    start = await probe.findIntactFrame(run.end + 1, end);
  }
  return [];
}

interface Landmark {
  entry: number;
  address: number;
}

/** Finds where the walk picks up again after a damaged frame: the next intact frame some evidence points at. */
class Resync {
  /** Index entries below this are known not to lead to an intact frame the walk has not passed yet. */
  #scanFrom = 0;

  constructor(
    private readonly probe: FrameProbe,
    private readonly recorded: readonly number[],
    private readonly limit: number,
  ) {}

  async after(entry: number, address: number, frame: FrameCheck): Promise<Landmark | undefined> {
    const following = this.recorded[entry + 1];
    const byIndex = following === undefined ? undefined : { entry: entry + 1, address: following };
    const byLength = frame.size > 0 ? { entry: entry + 1, address: address + frame.size } : undefined;
    // Where the index agrees on the damaged frame's start, it is likely right about its successor too; where it
    // does not, the frame's own length field is the better witness.
    const candidates = this.recorded[entry] === address ? [byIndex, byLength] : [byLength, byIndex];
    for (const candidate of candidates) {
      if (candidate && (await this.holdsIntactFrame(candidate, address))) return candidate;
    }
    return this.scanIndex(entry, address);
  }

  /** The first later index entry pointing at an intact frame. Each entry is probed at most once per walk. */
  private async scanIndex(entry: number, address: number): Promise<Landmark | undefined> {
    const end = Math.min(this.recorded.length, this.limit);
    for (let next = Math.max(this.#scanFrom, entry + 2); next < end; next++) {
      const candidate = { entry: next, address: this.recorded[next] };
      if (await this.holdsIntactFrame(candidate, address)) {
        this.#scanFrom = next;
        return candidate;
      }
    }
    this.#scanFrom = end;
    return undefined;
  }

  private async holdsIntactFrame(candidate: Landmark, after: number): Promise<boolean> {
    if (candidate.entry >= this.limit || candidate.address <= after) return false;
    return (await this.probe.check(candidate.address, false)).valid;
  }
}

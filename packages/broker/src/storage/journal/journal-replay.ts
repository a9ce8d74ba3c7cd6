import { encodeFrames, FRAME_HEADER_BYTES } from '../entry-frame';
import { SegmentFileChain } from '../segment-file-chain';
import { CorruptionError } from '../storage.errors';
import { AppendOp } from './journal-record';

/** A single zero byte whose checksum is deliberately wrong: reading it raises ChecksumMismatchError. */
const LOST_ENTRY_PAYLOAD = Buffer.from([0]);

/**
 * Brings a topic's files in line with one journaled append, idempotently: entries already there with the same
 * bytes are kept, the first one that differs (or is damaged, or missing) cuts the topic back to it, and the rest
 * is written from the journal. Offsets the topic lacks before the append (lost with a damaged journal record) are
 * filled with entries that fail their checksum, so offsets stay dense and delivery skips them. Returns what it
 * repaired, for the log.
 */
export async function replayAppend(chain: SegmentFileChain, op: AppendOp): Promise<string[]> {
  const repairs: string[] = [];
  const starts = frameStarts(op.frames, op.entryCount);
  const matching = await matchingPrefix(chain, op, starts);
  // Entries a crashed process wrote may still be only in the page cache: the flush after the replay must fsync them
  // before the journal forgets them, although the replay writes nothing there.
  if (matching > 0) chain.markUnsyncedFrom(op.firstOffset);
  if (matching === op.entryCount) return repairs;
  const at = op.firstOffset + matching;
  if (chain.tailOffset > at) {
    repairs.push(`entries from offset ${at} differ from the journal and are rewritten from it`);
    await chain.truncateTo(at);
  }
  // The cut may leave the log shorter than `at` (a segment was missing or damaged): the offsets in between belong
  // to journal records that were lost, and keep their places as entries that fail their checksum.
  if (chain.tailOffset < at) {
    repairs.push(`offsets ${chain.tailOffset}..${at - 1} were lost with damaged journal records; they are skipped at delivery`);
    const lost = encodeFrames(Array.from({ length: at - chain.tailOffset }, () => LOST_ENTRY_PAYLOAD));
    for (const start of lost.starts) lost.bytes.writeUInt32BE(0, start + 4);
    await chain.write(lost.bytes, lost.starts);
  }
  const from = starts[matching];
  await chain.write(
    op.frames.subarray(from),
    starts.slice(matching).map((start) => start - from),
  );
  return repairs;
}

/** How many of the append's entries the topic already holds with the same bytes, from its first one. */
async function matchingPrefix(chain: SegmentFileChain, op: AppendOp, starts: number[]): Promise<number> {
  let matched = 0;
  while (matched < op.entryCount && op.firstOffset + matched < chain.tailOffset) {
    let stored: Array<Buffer | CorruptionError>;
    try {
      stored = await chain.readMany(op.firstOffset + matched, op.entryCount - matched);
    } catch {
      return matched;
    }
    if (stored.length === 0) return matched;
    for (const entry of stored) {
      const start = starts[matched];
      const end = matched + 1 < starts.length ? starts[matched + 1] : op.frames.length;
      if (entry instanceof Error || !entry.equals(op.frames.subarray(start + FRAME_HEADER_BYTES, end))) return matched;
      matched++;
    }
  }
  return matched;
}

/** Start of each of `count` frames laid back to back in `frames`. */
export function frameStarts(frames: Buffer, count: number): number[] {
  const starts = new Array<number>(count);
  let position = 0;
  for (let i = 0; i < count; i++) {
    starts[i] = position;
    position += 4 + frames.readUInt32BE(position);
  }
  return starts;
}

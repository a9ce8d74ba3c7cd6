import { readFileSync } from 'node:fs';
import type { StoredSegment, StoredTopic } from '../format/data-root-reader';
import { readEnvelope } from '../format/envelope';
import { framePayload, JOURNAL_HEADER_BYTES } from '../format/journal-format';
import { appendedEntries, JournalRecord, JournalView } from '../format/journal-reader';
import { INDEX_ENTRY_BYTES, readFrameAt } from '../format/segment-format';
import { DeliveryEvidence, stateRecordDurable } from './state-record-evidence';

/** Why the journal's last record counts as durable (or `undefined`: it may be lost). */
export type LastRecordDurable = 'acknowledged' | 'pushed' | 'applied' | 'later-file' | 'flush-gap';

/** How far one file is known to be on disk after a SIGKILL: bytes past `floor` may be lost to a power cut. */
export interface FileFloor {
  path: string;
  size: number;
  floor: number;
  kind: 'data' | 'index' | 'journal';
  /** A segment wholly past the durable point (it starts at or after f_T): it may vanish altogether. */
  deletable: boolean;
}

export interface DurableFloors {
  files: FileFloor[];
  lastRecord?: JournalRecord;
  /** Why the last record must stay; undefined when it may be cut (or there is none). */
  lastRecordDurable?: LastRecordDurable;
  /** The journal or topic files contradict the format note (reported, never cut around). */
  problems: string[];
}

/** Whether the harness knows a message was committed: `acknowledged` to its producer, `pushed` to a consumer. */
export type CommitEvidence = (topic: string, id: string) => 'acknowledged' | 'pushed' | undefined;

/**
 * What a power cut right now could take, from the journal and the files alone (docs/storage.md, "power loss"):
 * a topic T with an APPEND above the last FLUSHED seq P is durable up to entry f_T (the firstOffset of its first
 * such APPEND); a topic without one is durable whole; segments starting at or after f_T may be lost entirely.
 * Every journal record but the last was fsync'd before the next was written; the last one is durable too if
 * one of its messages was acknowledged or pushed, if its entries already are in the topic files (records are
 * applied only after their fsync), or if it was not written to the last journal file (a file is created after
 * the previous record's fsync). A FLUSHED record is kept when cutting it would leave a sequence gap: older
 * journal files are deleted only after it was fsync'd. A record of subscription states (CHECKPOINT_STATE) is
 * durable if a push went past the delivered mark before it, or a checkpoint file holds its state
 * (state-record-evidence.ts); `delivered` says what was pushed.
 */
export function durableFloors(
  journal: JournalView,
  topics: Map<string, StoredTopic>,
  committed: CommitEvidence,
  delivered?: DeliveryEvidence,
): DurableFloors {
  const floors: DurableFloors = { files: [], lastRecord: journal.lastRecord, problems: [...journal.problems] };
  for (const topic of topics.values()) {
    const firstUnflushed = journal.firstUnflushedOffset.get(topic.name);
    if (firstUnflushed !== undefined) floors.files.push(...topicFloors(topic, firstUnflushed, floors.problems));
  }
  floors.lastRecordDurable = journal.lastRecord && lastRecordDurable(journal, journal.lastRecord, topics, committed, delivered);
  const lastFile = journal.files[journal.files.length - 1];
  for (const file of journal.files) {
    if (file !== lastFile && file.path !== journal.lastRecord?.path) continue;
    if (file.header !== 'ok') continue; // a file that never got its header holds no record
    let floor = JOURNAL_HEADER_BYTES;
    const last = journal.lastRecord;
    if (last?.path === file.path) floor = floors.lastRecordDurable ? last.end : last.start;
    floors.files.push({ path: file.path, size: file.size, floor, kind: 'journal', deletable: false });
  }
  return floors;
}

/** Floors of one topic's segments, durable up to entry `firstUnflushed`. */
function topicFloors(topic: StoredTopic, firstUnflushed: number, problems: string[]): FileFloor[] {
  const files: FileFloor[] = [];
  topic.segments.forEach((segment, i) => {
    const next = topic.segments[i + 1];
    if (next !== undefined && next.startOffset <= firstUnflushed) return; // wholly below the durable point
    const whole = segment.startOffset >= firstUnflushed;
    const entries = whole ? 0 : firstUnflushed - segment.startOffset;
    if (entries > segment.addresses.length) {
      problems.push(
        `${segment.indexPath}: ${segment.addresses.length} index entries, but the journal says entries up to ` +
          `${firstUnflushed - 1} were flushed (the first APPEND of ${topic.name} above the last FLUSHED is at ${firstUnflushed})`,
      );
      return;
    }
    const dataFloor = entries === 0 ? 0 : frameEnd(segment, entries - 1, problems);
    if (dataFloor === undefined) return;
    files.push({ path: segment.dataPath, size: segment.dataBytes, floor: dataFloor, kind: 'data', deletable: whole });
    files.push({ path: segment.indexPath, size: segment.indexBytes, floor: entries * INDEX_ENTRY_BYTES, kind: 'index', deletable: whole });
  });
  return files;
}

/** Where the frame of the segment's entry `i` ends; undefined (with a problem) when it does not read. */
function frameEnd(segment: StoredSegment, i: number, problems: string[]): number | undefined {
  const data = readFileSync(segment.dataPath);
  const frame = readFrameAt(data, segment.addresses[i]);
  if (frame.kind === 'ok') return frame.address + frame.size;
  problems.push(
    `${segment.dataPath}: flushed entry ${segment.startOffset + i} at byte ${segment.addresses[i]} does not read (${frame.kind})`,
  );
  return undefined;
}

function lastRecordDurable(
  journal: JournalView,
  last: JournalRecord,
  topics: Map<string, StoredTopic>,
  committed: CommitEvidence,
  delivered: DeliveryEvidence | undefined,
): LastRecordDurable | undefined {
  const lastFile = journal.files[journal.files.length - 1];
  if (lastFile && lastFile.path !== last.path) return 'later-file';
  let applied = false;
  for (const { topic, offset, frame } of appendedEntries(last)) {
    const payload = framePayload(frame);
    const id = readEnvelope(payload)?.id;
    const evidence = id === undefined ? undefined : committed(topic, id);
    if (evidence) return evidence;
    const stored = topics.get(topic)?.entries.get(offset);
    if (stored && 'payload' in stored && stored.payload.equals(payload)) applied = true;
  }
  if (applied) return 'applied';
  const state = stateRecordDurable(journal, last, topics, delivered);
  if (state) return state;
  if (last.ops.some((op) => op.kind === 'flushed') && cutLeavesGap(journal, last)) return 'flush-gap';
  return undefined;
}

/** Whether, without `last`, the oldest record left would not follow the last FLUSHED seq left. */
function cutLeavesGap(journal: JournalView, last: JournalRecord): boolean {
  const rest = journal.records.filter((record) => record !== last);
  if (rest.length === 0) return false;
  let flushed = 0;
  for (const record of rest) for (const op of record.ops) if (op.kind === 'flushed') flushed = Math.max(flushed, op.seq);
  return rest[0].seq > flushed + 1;
}

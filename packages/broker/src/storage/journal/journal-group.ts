import { encodeFrames, FRAME_HEADER_BYTES } from '../entry-frame';
import { CommitRequest, Flushable, JournalTopic } from './journal-commit';
import { encodedOpBytes, encodeRecordPayload, JournalOp, JournalOpKind, RECORD_HEADER_BYTES } from './journal-record';

/** The entries of one topic in a commit group, at consecutive offsets from `first`. */
export interface AppendGroup {
  topic: JournalTopic;
  first: number;
  payloads: Buffer[];
  /** Where each entry's frame starts in the topic's frames. */
  starts: number[];
}

/** One commit group, ready to be written: its ops, and what to apply once they are durable. */
export interface AssembledGroup {
  /** One per topic, in the order the ops list them (the first `appends.length` ops are theirs). */
  appends: AppendGroup[];
  ops: JournalOp[];
  /** Per request, the first offset of each of its topic parts. */
  firstOffsets: Array<Array<number | undefined>>;
  /** Consumer-state changes, applied after the record is durable; each may return what the flush must sync. */
  applies: Array<() => Flushable | void>;
}

/**
 * Gives every topic part its offsets — after what its topic already holds, in request order — and merges each
 * topic's parts into one APPEND op, so a group costs one write per topic.
 */
export function assembleGroup(requests: readonly CommitRequest[]): AssembledGroup {
  const byTopic = new Map<JournalTopic, { topic: JournalTopic; first: number; payloads: Buffer[] }>();
  const others: JournalOp[] = [];
  const applies: Array<() => Flushable | void> = [];
  const firstOffsets = requests.map((request) =>
    request.parts.map((part) => {
      if ('op' in part) {
        others.push(part.op);
        if (part.apply) applies.push(part.apply);
        return undefined;
      }
      let group = byTopic.get(part.topic);
      if (!group) byTopic.set(part.topic, (group = { topic: part.topic, first: part.topic.writtenEnd, payloads: [] }));
      const first = group.first + group.payloads.length;
      for (const payload of part.payloads) group.payloads.push(payload);
      return first;
    }),
  );
  const appends: AppendGroup[] = [];
  const ops: JournalOp[] = [];
  for (const group of byTopic.values()) {
    const { bytes, starts } = encodeFrames(group.payloads);
    appends.push({ ...group, starts });
    ops.push({
      kind: JournalOpKind.APPEND,
      topic: group.topic.name,
      firstOffset: group.first,
      entryCount: group.payloads.length,
      frames: bytes,
    });
  }
  ops.push(...others);
  return { appends, ops, firstOffsets, applies };
}

/**
 * A record with room for its frame header (the journal file fills it in), and where each append op's frames
 * start in it: the topic files are written from those bytes.
 */
export function encodeRecord(seq: number, ops: readonly JournalOp[]): { record: Buffer; frameStarts: number[] } {
  let size = FRAME_HEADER_BYTES + RECORD_HEADER_BYTES;
  for (const op of ops) size += encodedOpBytes(op);
  const record = Buffer.allocUnsafe(size);
  const frameStarts = encodeRecordPayload({ seq, ops: [...ops] }, record, FRAME_HEADER_BYTES);
  return { record, frameStarts };
}

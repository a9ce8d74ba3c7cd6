import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredTopic } from '../format/data-root-reader';
import { CheckpointState, decodeCheckpoint } from '../format/checkpoint-format';
import type { JournalRecord, JournalView } from '../format/journal-reader';

/**
 * Whether `consumerId` was handed an offset at or above `fromOffset` of `topic` by the broker that was just
 * killed (this run of it only: an earlier run's pushes may lie above a mark a simulated power cut took back).
 */
export type DeliveryEvidence = (topic: string, consumerId: string, fromOffset: number) => boolean;

/**
 * Why a journal record's CHECKPOINT_STATE ops prove it was fsync'd, if they do:
 * - `pushed`: a subscription hands out an offset only below a delivered mark already on disk, so a push at or
 *   above the mark the (topic, consumer) had before this record means this record's higher mark was durable;
 * - `applied`: the consumer's checkpoint file holds this record's state (and no earlier op of the journal holds
 *   the same): states are applied after their record's fsync, and files are written with applied states.
 */
export function stateRecordDurable(
  journal: JournalView,
  record: JournalRecord,
  topics: Map<string, StoredTopic>,
  delivered: DeliveryEvidence | undefined,
): 'pushed' | 'applied' | undefined {
  let applied = false;
  for (const op of record.ops) {
    if (op.kind !== 'checkpoint-state') continue;
    const state = decodeCheckpoint(op.state);
    if (typeof state === 'string') continue; // reported as a problem by the journal reader
    const earlier = earlierState(journal, record, op.topic, op.consumerId);
    const file = fileState(topics.get(op.topic), op.consumerId);
    const before = earlier ?? (file && !sameState(file.bytes, op.state) ? file.state : undefined);
    if (delivered && before && state.deliveredMark > before.deliveredMark && delivered(op.topic, op.consumerId, before.deliveredMark)) {
      return 'pushed';
    }
    if (file && sameState(file.bytes, op.state) && !(earlier && earlier.bytes && sameState(earlier.bytes, op.state))) applied = true;
  }
  return applied ? 'applied' : undefined;
}

type KnownState = Pick<CheckpointState, 'deliveredMark'> & { bytes?: Buffer };

/** The state the last op before `record` left for (topic, consumer), if the journal still holds one. */
function earlierState(journal: JournalView, record: JournalRecord, topic: string, consumerId: string): KnownState | undefined {
  let found: KnownState | undefined;
  for (const other of journal.records) {
    if (other === record) break;
    for (const op of other.ops) {
      if (op.kind === 'flushed' || op.kind === 'append' || op.topic !== topic || op.consumerId !== consumerId) continue;
      if (op.kind === 'checkpoint') found = { deliveredMark: op.nextOffset };
      else if (op.kind === 'checkpoint-delete') found = { deliveredMark: 0 };
      else {
        const state = decodeCheckpoint(op.state);
        if (typeof state !== 'string') found = { deliveredMark: state.deliveredMark, bytes: op.state };
      }
    }
  }
  return found;
}

function fileState(topic: StoredTopic | undefined, consumerId: string): { bytes: Buffer; state: CheckpointState } | undefined {
  if (!topic) return undefined;
  const path = join(topic.dir, 'checkpoints', `${consumerId}.checkpoint`);
  if (!existsSync(path)) return undefined;
  const bytes = readFileSync(path);
  const state = decodeCheckpoint(bytes);
  return typeof state === 'string' ? undefined : { bytes, state };
}

/** The same state: a file may keep bytes past the CRC (a longer snapshot's leftovers), so compare decoded. */
function sameState(a: Buffer, b: Buffer): boolean {
  const left = decodeCheckpoint(a);
  const right = decodeCheckpoint(b);
  return (
    typeof left !== 'string' &&
    typeof right !== 'string' &&
    JSON.stringify({ ...left, form: '' }) === JSON.stringify({ ...right, form: '' })
  );
}

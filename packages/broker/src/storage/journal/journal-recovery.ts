import { promises as fs } from 'node:fs';
import { Logger } from '@nestjs/common';
import type { CheckpointDirectory } from '../checkpoint-directory';
import { FileHandle } from '../file-handle';
import type { SegmentFileChain } from '../segment-file-chain';
import { JournalStart } from './journal';
import { decodeSnapshot } from '../subscription-snapshot';
import { JournalOpKind } from './journal-record';
import { replayAppend } from './journal-replay';
import { scanJournal } from './journal-scanner';

/** What recovery needs of a topic: its log and its checkpoints, opened (and their own recovery run). */
export interface RecoveredTopic {
  chain: SegmentFileChain;
  checkpoints: CheckpointDirectory;
}

/**
 * Replays the journal into the topic and checkpoint files at boot: every intact record above the last FLUSHED op,
 * in order and idempotently, then cuts every replayed topic back to the end of its last journaled append (nothing
 * past it was ever acknowledged) and makes all of it durable. A torn tail is cut; damage in the middle is reported
 * and the records after it are still replayed.
 */
export async function recoverJournal(dir: string, openTopic: (name: string) => Promise<RecoveredTopic>): Promise<JournalStart> {
  const logger = new Logger('JournalRecovery');
  await fs.mkdir(dir, { recursive: true });
  const scan = await scanJournal(dir);
  for (const line of scan.damage) logger.warn(`Journal damaged: ${line}`);
  if (scan.tornTail) {
    logger.warn(
      `Journal: cut ${scan.tornTail.bytes} bytes after the last record of ${scan.tornTail.path} (at ${scan.tornTail.at}): ` +
        "a torn write that was never acknowledged, or a recycled file's leftovers",
    );
    await cutTail(scan.tornTail.path, scan.tornTail.at);
  }
  // Zeros a file was preallocated with past its last record: cut quietly, they were never records.
  for (const tail of scan.unusedTails) await cutTail(tail.path, tail.at);
  let flushedSeq = 0;
  let lastDataSeq = 0;
  for (const record of scan.records) {
    for (const op of record.ops) {
      if (op.kind === JournalOpKind.FLUSHED) flushedSeq = Math.max(flushedSeq, op.seq);
      else lastDataSeq = record.seq;
    }
  }
  const ends = new Map<string, number>();
  const touched = new Set<RecoveredTopic>();
  let replayed = 0;
  for (const record of scan.records) {
    if (record.seq <= flushedSeq) continue;
    replayed++;
    for (const op of record.ops) {
      if (op.kind === JournalOpKind.FLUSHED) continue;
      const topic = await openTopic(op.topic);
      touched.add(topic);
      if (op.kind === JournalOpKind.APPEND) {
        const repairs = await replayAppend(topic.chain, op);
        for (const repair of repairs) logger.warn(`Topic ${op.topic}: ${repair}`);
        ends.set(op.topic, op.firstOffset + op.entryCount);
      } else if (op.kind === JournalOpKind.CHECKPOINT) {
        await topic.checkpoints.restore(op.consumerId, op.offset, topic.chain.tailOffset);
      } else if (op.kind === JournalOpKind.CHECKPOINT_STATE) {
        const snapshot = decodeSnapshot(op.state);
        // Its record's checksum matched, so this is a bug, not damage: keep the older state (redeliver, never skip).
        if (typeof snapshot === 'string')
          logger.warn(
            `Topic ${op.topic}: journal record ${record.seq} holds ${snapshot} for consumer ${op.consumerId}; kept its older state`,
          );
        else await topic.checkpoints.restore(op.consumerId, snapshot, topic.chain.tailOffset);
      } else {
        await topic.checkpoints.forget(op.consumerId);
      }
    }
  }
  for (const [name, end] of ends) {
    const { chain } = await openTopic(name);
    if (chain.tailOffset > end) {
      logger.warn(`Topic ${name}: removed entries ${end}..${chain.tailOffset - 1}, which the journal never committed`);
      await chain.truncateTo(end);
    }
  }
  for (const topic of touched) {
    await topic.chain.sync();
    await topic.checkpoints.sync();
  }
  const lastSeq = scan.records.length > 0 ? scan.records[scan.records.length - 1].seq : 0;
  // Sequence numbers never restart, even when the newest file holds no record (its name says where they stand);
  // a file named past the last record holds none, and the new file takes the next number.
  const nextSeq = Math.max(lastSeq + 1, ...scan.files.map((file) => file.firstSeq));
  const files = scan.files.filter((file) => file.firstSeq <= lastSeq);
  for (const file of scan.files) if (file.firstSeq > lastSeq) await fs.rm(file.path, { force: true });
  if (replayed > 0) logger.log(`Journal: replayed ${replayed} records above sequence number ${flushedSeq} into ${touched.size} topics`);
  return {
    dir,
    nextSeq,
    files,
    // Everything replayed is durable in the topic files now; the journal's first flush records that.
    flushedSeq: lastDataSeq > flushedSeq ? flushedSeq : lastSeq,
    lastDataSeq,
    spare: scan.spare,
  };
}

/** Cuts a journal file at `at`, durably. */
async function cutTail(path: string, at: number): Promise<void> {
  const file = await FileHandle.open(path, false);
  try {
    await file.truncate(at);
    await file.sync();
  } finally {
    await file.close();
  }
}

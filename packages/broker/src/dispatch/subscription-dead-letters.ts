import type { CommitPart } from '../storage/journal/journal-commit';
import { GROUP_COMMIT_MAX_BYTES } from '../storage/journal/journal';
import type { TopicQueue } from '../storage/topic-queue';
import type { PreparedDeadLetter } from './dead-letter-writer';
import type { Slot } from './ledger/slot';

/** One record carries dead letters of this many payload bytes at most (at least one letter): the rest go next. */
export const DEAD_LETTERS_PER_RECORD_MAX_BYTES = GROUP_COMMIT_MAX_BYTES;

/** A dead letter waiting for its subscription's next state write. */
interface PendingDeadLetter {
  /** DEAD_LETTERING: only the dead-lettering owns it, so nothing else changes it while it waits. */
  slot: Slot;
  letter: PreparedDeadLetter;
  /** Resolved with its offset in the dead-letter topic once the record holding it is applied. */
  resolve(at: number): void;
  reject(error: Error): void;
}

/** The dead letters one state write takes: they share its journal record. */
export interface DeadLetterBatch {
  letters: PendingDeadLetter[];
  /** Their offsets: settled in the record's snapshot. */
  offsets: Set<number>;
  /** One part per dead-letter topic. */
  parts: CommitPart[];
  /** The topic of each of `parts`. */
  topics: TopicQueue[];
}

/**
 * The dead letters of one subscription waiting to be journaled. Each goes into the same journal record as a
 * snapshot of the subscription's state with its message settled — the journal makes a record durable whole or not
 * at all, across topics — so after a crash a message is either dead-lettered and passed, or neither (and delivered
 * again): never both a dead letter and a redelivery, as when the dead letter and the move were two writes. (Writing
 * the dead letter first and the state after still left that window; one record has none.)
 */
export class SubscriptionDeadLetters {
  private queue: PendingDeadLetter[] = [];
  private closedWith?: Error;

  get waiting(): boolean {
    return this.queue.length > 0;
  }

  /** Resolves with the dead letter's offset once it and the move past `slot` are durable; rejects when that failed. */
  add(slot: Slot, letter: PreparedDeadLetter): Promise<number> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    return new Promise((resolve, reject) => this.queue.push({ slot, letter, resolve, reject }));
  }

  /** Takes the waiting dead letters, oldest first, up to {@link DEAD_LETTERS_PER_RECORD_MAX_BYTES}. */
  take(): DeadLetterBatch {
    const batch: DeadLetterBatch = { letters: [], offsets: new Set(), parts: [], topics: [] };
    const byTopic = new Map<TopicQueue, Buffer[]>();
    let bytes = 0;
    while (this.queue.length > 0) {
      const next = this.queue[0];
      if (batch.letters.length > 0 && bytes + next.letter.payload.length > DEAD_LETTERS_PER_RECORD_MAX_BYTES) break;
      this.queue.shift();
      bytes += next.letter.payload.length;
      batch.letters.push(next);
      batch.offsets.add(next.slot.offset);
      const payloads = byTopic.get(next.letter.queue) ?? [];
      payloads.push(next.letter.payload);
      byTopic.set(next.letter.queue, payloads);
    }
    for (const [topic, payloads] of byTopic) {
      batch.parts.push({ topic, payloads });
      batch.topics.push(topic);
    }
    return batch;
  }

  /** The batch's record is applied: each letter learns its offset (`firstOffsets`: of each of the batch's parts). */
  committed(batch: DeadLetterBatch, firstOffsets: ReadonlyArray<number | undefined>): void {
    const next = new Map(batch.topics.map((topic, i) => [topic, firstOffsets[i] as number]));
    for (const pending of batch.letters) {
      const at = next.get(pending.letter.queue)!;
      next.set(pending.letter.queue, at + 1);
      pending.resolve(at);
    }
  }

  /** The batch's record failed: nothing of it was written; each letter is retried by whoever waits for it. */
  failed(batch: DeadLetterBatch, error: Error): void {
    for (const pending of batch.letters) pending.reject(error);
  }

  /** The subscription stopped: waiting dead letters are refused, and so are later ones. Idempotent. */
  close(error: Error): void {
    this.closedWith ??= error;
    for (const pending of this.queue.splice(0)) pending.reject(error);
  }
}

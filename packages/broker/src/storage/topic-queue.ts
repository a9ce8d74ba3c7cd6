import { Topic } from '@mmmq/core';
import { CheckpointDirectory } from './checkpoint-directory';
import { SegmentFileChain } from './segment-file-chain';
import { RecentEntries } from './recent-entries';
import { RecentEntriesBudget } from './recent-entries-budget';
import { CorruptionError, StorageUnavailableError } from './storage.errors';
import { GroupCommit } from './group-commit';
import { settleAll } from './settle-all';

/** Called after entries are committed, with the new tail offset. */
export type TopicQueueListener = (tailOffset: number) => void;

/**
 * A topic's durable log and its consumers' checkpoints. Concurrent offers are group-committed; every offer
 * resolves with its offset only after the index fsync that covers it.
 */
export class TopicQueue {
  private readonly listeners = new Set<TopicQueueListener>();
  private readonly groupCommit: GroupCommit;
  private readonly recent: RecentEntries;
  private closing?: Promise<void>;

  constructor(
    readonly topic: Topic,
    readonly dir: string,
    private readonly chain: SegmentFileChain,
    readonly checkpoints: CheckpointDirectory,
    recentBudget: RecentEntriesBudget,
  ) {
    this.recent = new RecentEntries(chain.tailOffset, undefined, recentBudget);
    this.groupCommit = new GroupCommit(topic.name, chain, (first, payloads) => {
      this.recent.append(first, payloads);
      this.notify(first + payloads.length);
    });
  }

  /** The offset the next committed entry gets; everything below it is readable. */
  get tailOffset(): number {
    return this.chain.tailOffset;
  }

  /** Durably appends one payload and resolves with its offset. */
  async offer(payload: Buffer): Promise<number> {
    return this.offerAll([payload]);
  }

  /** Durably appends all payloads as one unit (all committed or none) and resolves with the first offset. */
  offerAll(payloads: readonly Buffer[]): Promise<number> {
    if (this.closing) {
      return Promise.reject(new StorageUnavailableError(`Topic ${this.topic.name} is closed; the publish was not stored`));
    }
    return this.groupCommit.submit(payloads);
  }

  /** The committed payload at `offset`, or null when `offset` is at or past the tail. */
  peek(offset: number): Promise<Buffer | null> {
    const recent = this.recent.get(offset);
    return recent ? Promise.resolve(recent) : this.chain.read(offset);
  }

  /**
   * Up to `max` committed payloads from `offset` (fewer at the tail or a segment end; none past the tail).
   * Recent ones come from memory, older ones from one disk read; a damaged entry is its CorruptionError.
   */
  async peekMany(offset: number, max: number): Promise<Array<Buffer | CorruptionError>> {
    const end = Math.min(this.tailOffset, offset + max);
    const { start, end: recentEnd } = this.recent;
    // Past the memory run only between an index commit and its callback: a short window, served from disk.
    if (offset < start || offset >= recentEnd) return this.chain.readMany(offset, (offset < start ? Math.min(end, start) : end) - offset);
    const entries: Buffer[] = [];
    for (let at = offset; at < Math.min(end, recentEnd); at++) entries.push(this.recent.get(at) as Buffer);
    return entries;
  }

  /** Durably records that `consumerId` should next receive `offset`. */
  async commit(consumerId: string, offset: number): Promise<void> {
    const checkpoint = await this.checkpoints.open(consumerId, offset, this.tailOffset);
    await checkpoint.write(offset);
  }

  /** Calls `listener` after every commit; returns the unsubscribe function. */
  subscribe(listener: TopicQueueListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(tailOffset: number): void {
    for (const listener of this.listeners) listener(tailOffset);
  }

  /** Waits for in-flight commits, then closes every file. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.listeners.clear();
      await this.groupCommit.drain();
      this.recent.close();
      await settleAll([this.chain.close(), this.checkpoints.close()], `Closing topic ${this.topic.name} failed`);
    })();
    return this.closing;
  }
}

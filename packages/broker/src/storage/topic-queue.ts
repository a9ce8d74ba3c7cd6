import { Topic } from '@mmmq/core';
import { CheckpointDirectory } from './checkpoint-directory';
import { SegmentFileChain } from './segment-file-chain';
import { StorageUnavailableError } from './storage.errors';
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
  private closing?: Promise<void>;

  constructor(
    readonly topic: Topic,
    readonly dir: string,
    private readonly chain: SegmentFileChain,
    readonly checkpoints: CheckpointDirectory,
  ) {
    this.groupCommit = new GroupCommit(topic.name, chain, (tail) => this.notify(tail));
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
    return this.chain.read(offset);
  }

  /** Durably records that `consumerId` should next receive `offset`. */
  async commit(consumerId: string, offset: number): Promise<void> {
    const checkpoint = await this.checkpoints.open(consumerId, offset);
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
      await settleAll([this.chain.close(), this.checkpoints.close()], `Closing topic ${this.topic.name} failed`);
    })();
    return this.closing;
  }
}

import { Topic } from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import { decodeEnvelope } from '../format/message-envelope';
import { DiskGuard } from '../storage/disk-guard';
import { CorruptionError } from '../storage/storage.errors';
import { TopicQueueContainer } from '../storage/topic-queue-container';
import { browseTopic, MessageView } from '../topics/topic-browser';
import { DispatcherNotFoundError } from './dispatcher.errors';
import { DispatcherRegistry } from './dispatcher-registry';
import { deadLetterTopicOf, redriveTopicOf } from './reserved-topics';

/** A dead letter: the message as stored in `__dlq.{consumerId}`, its `topic` the one it was published to. */
export type DeadLetterView = MessageView;

export interface DeadLetterPage {
  consumerId: string;
  deadLetters: DeadLetterView[];
  /** Pass as `from` for the next page; equal to `total` at the end. */
  nextFrom: number;
  /** The offset the next dead letter gets (dead letters ever written, purged ones included). */
  total: number;
  /** Offset of the oldest dead letter kept: a purge (or retention) moves it. */
  startOffset: number;
}

/** What a purge did. */
export interface DeadLetterPurge {
  consumerId: string;
  /** Dead letters purged by this request (0 when the range was purged already). */
  purged: number;
  /** Offset of the oldest dead letter kept now; everything below it is gone for good. */
  startOffset: number;
}

/**
 * Lists a consumer's dead letters, hands them back to it through its `__redrive.{consumerId}` topic (all of them
 * moved, or some copied), and purges them (moves the dead-letter topic's durable start past them).
 */
@Injectable()
export class DeadLetterService {
  /** The redrive in progress per consumer id, which the next one waits for. */
  private readonly redriving = new Map<string, Promise<number>>();

  constructor(
    private readonly queues: TopicQueueContainer,
    private readonly registry: DispatcherRegistry,
    // A redrive copies dead letters into a topic: refused like a publish while the disk is low. Absent in hand-built tests.
    private readonly diskGuard?: DiskGuard,
  ) {}

  async list(consumerId: string, from: number | undefined, limit: number): Promise<DeadLetterPage> {
    const queue = this.queues.get(deadLetterTopicOf(consumerId));
    if (!queue && !this.registry.find(consumerId)) throw new DispatcherNotFoundError(consumerId);
    if (!queue) return { consumerId, deadLetters: [], nextFrom: 0, total: 0, startOffset: 0 };
    const page = await browseTopic(queue, from, limit);
    return { consumerId, deadLetters: page.messages, nextFrom: page.nextFrom, total: page.tailOffset, startOffset: page.startOffset };
  }

  /**
   * Purges the consumer's dead letters below offset `before` (default: all there are now), durably before it
   * resolves: they are never listed or redriven again, and their whole segments are deleted.
   */
  async purge(consumerId: string, before?: number): Promise<DeadLetterPurge> {
    const queue = this.queues.get(deadLetterTopicOf(consumerId));
    if (!queue && !this.registry.find(consumerId)) throw new DispatcherNotFoundError(consumerId);
    if (!queue) return { consumerId, purged: 0, startOffset: 0 };
    const start = queue.startOffset;
    const startOffset = await queue.purgeTo(before ?? queue.tailOffset);
    // The segments wholly purged go now; one the journal may still replay into goes at a later retention check.
    await queue.removeOldest((segment) => segment.endOffset <= startOffset);
    return { consumerId, purged: Math.max(0, startOffset - start), startOffset };
  }

  /**
   * Queues dead letters for redelivery to the consumer; returns how many. Without `ids` it *moves* every dead
   * letter kept now: they are appended to `__redrive.{consumerId}`, then purged from `__dlq.{consumerId}`, so a
   * consumer that fails them again gets them back once each, not once per redrive (those failing again come back
   * as new dead letters). With `ids` it copies those and leaves them listed. Redrives of one consumer run one at
   * a time, so two "redrive all" at once cannot both hand the same letters back.
   */
  async redrive(consumerId: string, ids?: readonly string[]): Promise<number> {
    this.registry.get(consumerId);
    const previous = this.redriving.get(consumerId) ?? Promise.resolve(0);
    const next = previous.catch(() => 0).then(() => this.redriveNow(consumerId, ids));
    this.redriving.set(consumerId, next);
    const forget = () => {
      if (this.redriving.get(consumerId) === next) this.redriving.delete(consumerId);
    };
    next.then(forget, forget);
    return next;
  }

  private async redriveNow(consumerId: string, ids: readonly string[] | undefined): Promise<number> {
    const queue = this.queues.get(deadLetterTopicOf(consumerId));
    if (!queue) return 0;
    const wanted = ids ? new Set(ids) : undefined;
    // Dead letters written while this one runs stay where they are: only what was kept when it began is moved.
    const end = queue.tailOffset;
    const payloads: Buffer[] = [];
    for (let offset = queue.startOffset; offset < end; offset++) {
      const payload = await queue.peek(offset).catch(skipCorrupt);
      if (payload && (!wanted || wanted.has(decodeEnvelope(payload).id ?? ''))) payloads.push(payload);
    }
    if (payloads.length > 0) {
      this.diskGuard?.assertMayPublish();
      const redrive = await this.queues.getOrCreate(Topic.of(redriveTopicOf(consumerId)));
      await redrive.offerAll(payloads);
    }
    // Durable once the copies are: a crash in between hands them back twice at worst (at-least-once), never loses one.
    if (!wanted) await queue.purgeTo(end);
    return payloads.length;
  }
}

function skipCorrupt(error: unknown): null {
  if (error instanceof CorruptionError) return null;
  throw error;
}

import { MessageHeaders, MmmqValidationError, Topic } from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import { decodeEnvelope } from '../publish/message-envelope';
import { DiskGuard } from '../storage/disk-guard';
import { CorruptionError } from '../storage/storage.errors';
import { TopicQueueContainer } from '../storage/topic-queue-container';
import { DispatcherNotFoundError } from './dispatcher.errors';
import { DispatcherRegistry } from './dispatcher-registry';
import { deadLetterTopicOf, redriveTopicOf } from './reserved-topics';

/** Dead letters listed per page unless `limit` says otherwise. */
export const DEFAULT_DEAD_LETTER_PAGE_SIZE = 100;
/** The largest page `limit` may ask for. */
export const MAX_DEAD_LETTER_PAGE_SIZE = 1000;

export interface DeadLetterView {
  /** Position in `__dlq.{consumerId}`. */
  offset: number;
  id: string | null;
  /** The topic the message was published to. */
  topic: string;
  headers: MessageHeaders;
  publishedAt: number | null;
  content: unknown;
}

export interface DeadLetterPage {
  consumerId: string;
  deadLetters: DeadLetterView[];
  /** Pass as `from` for the next page; equal to `total` at the end. */
  nextFrom: number;
  total: number;
}

/** Lists a consumer's dead letters and hands them back to it through its `__redrive.{consumerId}` topic. */
@Injectable()
export class DeadLetterService {
  constructor(
    private readonly queues: TopicQueueContainer,
    private readonly registry: DispatcherRegistry,
    // A redrive copies dead letters into a topic: refused like a publish while the disk is low. Absent in hand-built tests.
    private readonly diskGuard?: DiskGuard,
  ) {}

  async list(consumerId: string, from: number, limit: number): Promise<DeadLetterPage> {
    if (!Number.isSafeInteger(from) || from < 0) throw new MmmqValidationError('from must be a non-negative integer');
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_DEAD_LETTER_PAGE_SIZE) {
      throw new MmmqValidationError(`limit must be an integer from 1 to ${MAX_DEAD_LETTER_PAGE_SIZE}`);
    }
    const queue = this.queues.get(deadLetterTopicOf(consumerId));
    if (!queue && !this.registry.find(consumerId)) throw new DispatcherNotFoundError(consumerId);
    const total = queue?.tailOffset ?? 0;
    const deadLetters: DeadLetterView[] = [];
    let offset = from;
    for (; queue && offset < total && deadLetters.length < limit; offset++) {
      const payload = await queue.peek(offset).catch(skipCorrupt);
      if (!payload) continue;
      const envelope = decodeEnvelope(payload);
      deadLetters.push({
        offset,
        id: envelope.id,
        topic: envelope.topic,
        headers: envelope.headers,
        publishedAt: envelope.publishedAt,
        content: JSON.parse(envelope.content.toString('utf8')),
      });
    }
    return { consumerId, deadLetters, nextFrom: Math.min(offset, total), total };
  }

  /** Queues the dead letters (all, or those with the given ids) for redelivery to the consumer; returns how many. */
  async redrive(consumerId: string, ids?: readonly string[]): Promise<number> {
    this.registry.get(consumerId);
    const queue = this.queues.get(deadLetterTopicOf(consumerId));
    if (!queue) return 0;
    const wanted = ids ? new Set(ids) : undefined;
    const payloads: Buffer[] = [];
    for (let offset = 0; offset < queue.tailOffset; offset++) {
      const payload = await queue.peek(offset).catch(skipCorrupt);
      if (payload && (!wanted || wanted.has(decodeEnvelope(payload).id ?? ''))) payloads.push(payload);
    }
    if (payloads.length === 0) return 0;
    this.diskGuard?.assertMayPublish();
    const redrive = await this.queues.getOrCreate(Topic.of(redriveTopicOf(consumerId)));
    await redrive.offerAll(payloads);
    return payloads.length;
  }
}

function skipCorrupt(error: unknown): null {
  if (error instanceof CorruptionError) return null;
  throw error;
}

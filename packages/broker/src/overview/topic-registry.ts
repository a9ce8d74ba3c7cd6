import { Injectable, Optional } from '@nestjs/common';
import { Deduplicator } from '../deduplication/deduplicator';
import { DeduplicationStats } from '../deduplication/deduplication-window';
import { SubscriptionContainer, SubscriptionView } from '../dispatch/subscription-container';
import { TopicQueue } from '../storage/topic-queue';
import { TopicQueueContainer } from '../storage/topic-queue-container';
import { RetentionService } from '../retention/retention.service';
import { TopicPolicies } from '../topics/topic-policies';
import { ResolvedTopicPolicy } from '../topics/topic-policy.options';

/** A topic as {@link TopicRegistry} shows it: a snapshot, read when asked. */
export interface TopicInfo {
  name: string;
  /** A broker-owned topic: `__dlq.{consumerId}` (dead letters) or `__redrive.{consumerId}`. */
  reserved: boolean;
  /** Offset of the oldest message kept (retention and a purge move it). */
  startOffset: number;
  /** Offsets below it were purged (dead letters, `POST /mmmq/dead-letters/{consumerId}/purge`); 0 when none. */
  purgedBelow: number;
  /** Offset the next message gets; every message below it is committed and readable. */
  tailOffset: number;
  /** Messages kept: `tailOffset - startOffset`. */
  messages: number;
  /** Bytes of the topic's segment data files (each message's frame included). */
  bytes: number;
  segments: number;
  /** False while the topic refuses writes after a failed file write (it recovers by itself) or during shutdown. */
  writable: boolean;
  /**
   * Bytes retention would have deleted but keeps because a subscription has not consumed them
   * (`retention.whenNeeded: keep`); 0 when no subscription holds the topic past its retention.
   */
  retentionHeldBytes: number;
  /** The topic's retention policy (the `topics` option): age in ms and bytes (`null`: no limit), and `whenNeeded`. */
  retention: ResolvedTopicPolicy['retention'];
  /**
   * Re-publishes of a known producer-given id answered with the original ACK since the broker started (nothing was
   * stored for them); 0 while de-duplication is off for the topic.
   */
  messagesDeduplicated: number;
  /** The topic's de-duplication window since the broker started; null when `deduplication.windowMs` is 0. */
  deduplication: DeduplicationStats | null;
  /** Each consumer reading it: position, lag, state and counters, as `GET /mmmq/subscriptions` shows them. */
  subscriptions: SubscriptionView[];
}

/**
 * The broker's open topics, read-only: what exists, how far each log reaches and who reads it. Topics are created by
 * publishing (the producer, `POST /mmmq/messages`); they are restored from disk while the application starts, so
 * the list is complete once `app.init()` (or `listen`) has resolved.
 */
@Injectable()
export class TopicRegistry {
  constructor(
    private readonly queues: TopicQueueContainer,
    private readonly subscriptions: SubscriptionContainer,
    private readonly retention: RetentionService,
    private readonly policies: TopicPolicies,
    @Optional() private readonly deduplicator?: Deduplicator,
  ) {}

  /** Every open topic, by name. */
  list(): TopicInfo[] {
    const subscriptions = this.subscriptions.list();
    return this.queues
      .list()
      .map((queue) => this.info(queue, subscriptions))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The topic, or undefined when it does not exist (yet). */
  get(name: string): TopicInfo | undefined {
    const queue = this.queues.get(name);
    return queue && this.info(queue, this.subscriptions.list());
  }

  has(name: string): boolean {
    return this.queues.get(name) !== undefined;
  }

  private info(queue: TopicQueue, subscriptions: readonly SubscriptionView[]): TopicInfo {
    const { chain, tailOffset, startOffset } = queue;
    const deduplication = this.deduplicator?.stats(queue.name);
    return {
      name: queue.name,
      reserved: queue.topic.isReserved,
      startOffset,
      purgedBelow: queue.purgedBelow,
      tailOffset,
      messages: tailOffset - startOffset,
      bytes: chain.byteSize,
      segments: chain.segmentCount,
      writable: queue.writable,
      retentionHeldBytes: this.retention.heldBytes(queue.name),
      retention: { ...this.policies.of(queue.name).retention },
      messagesDeduplicated: deduplication?.deduplicated ?? 0,
      deduplication: deduplication ?? null,
      subscriptions: subscriptions.filter((subscription) => subscription.topic === queue.name),
    };
  }
}

import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { PublishableMessage } from '../format/publishable-message';
import { OnEvent } from '@nestjs/event-emitter';
import { TopicQueue, TopicQueueContainer } from '../storage';
import { TopicOpenedEvent } from '../storage/topic-opened.event';
import { describeCause } from '../storage/journal/describe-cause';
import { TopicPolicies } from '../topics/topic-policies';
import { DeduplicationClaim } from './deduplication-claim';
import { DeduplicationRestoreError } from './deduplication.errors';
import { DeduplicationStats, DeduplicationWindow } from './deduplication-window';
import { restoreWindow } from './restore-window';

/**
 * Broker-side de-duplication (docs/destinations.md#de-duplication): each topic with a `deduplication.windowMs`
 * remembers the producer-given ids of the messages it stored within that window, and a re-publish of one is answered
 * with the original ACK instead of being stored again. A topic's window is rebuilt from the tail of its log when it
 * opens, so it survives a restart, clean or not.
 */
@Injectable()
export class Deduplicator implements OnModuleInit {
  private readonly logger = new Logger(Deduplicator.name);
  private readonly windows = new Map<string, DeduplicationWindow>();

  constructor(
    private readonly queues: TopicQueueContainer,
    private readonly policies: TopicPolicies,
  ) {}

  onModuleInit(): void {
    this.queues.bus.listen(this);
    for (const queue of this.queues.list()) this.open(queue);
  }

  @OnEvent(TopicOpenedEvent.NAME)
  topicOpened({ queue }: TopicOpenedEvent): void {
    this.open(queue);
  }

  /** Topics whose window is still being read back from their log: their publishes with a producer-given id wait. */
  get restoring(): number {
    let restoring = 0;
    for (const window of this.windows.values()) if (!window.isReady) restoring++;
    return restoring;
  }

  /** The topic's counters; undefined when de-duplication is off for it. */
  stats(topic: string): DeduplicationStats | undefined {
    return this.windows.get(topic)?.stats;
  }

  /**
   * Decides which of `messages` are re-publishes of ids their topics know (their topics' queues are open), and
   * reserves the ids of the others until {@link DeduplicationClaim.committed}. A publish of an id whose commit is in
   * flight waits for that commit's outcome first (then, only then, the answer is a promise). Undefined (nothing
   * allocated) when no message has a producer-given id on a topic that de-duplicates.
   */
  claim(messages: readonly PublishableMessage[]): DeduplicationClaim | undefined | Promise<DeduplicationClaim | undefined> {
    const now = Date.now();
    let relevant = false;
    for (const message of messages) {
      const window = message.idFromProducer ? this.windows.get(message.topic.name) : undefined;
      if (window === undefined) continue;
      relevant = true;
      // Nothing is reserved while waiting, so two batches naming the same ids in opposite orders cannot deadlock.
      const waitFor = window.isReady ? window.lookup(message.id, now)?.pending?.whenSettled() : window.ready;
      if (waitFor !== undefined) return waitFor.then(() => this.claim(messages));
    }
    return relevant ? this.decide(messages, now) : undefined;
  }

  private decide(messages: readonly PublishableMessage[], now: number): DeduplicationClaim {
    const claim = new DeduplicationClaim(messages, now);
    messages.forEach((message, index) => {
      const window = message.idFromProducer ? this.windows.get(message.topic.name) : undefined;
      if (window !== undefined) claim.decide(index, window);
    });
    return claim;
  }

  private open(queue: TopicQueue): void {
    const { windowMs, maxIds } = this.policies.of(queue.name).deduplication;
    if (windowMs === 0 || this.windows.has(queue.name)) return;
    const window = new DeduplicationWindow(windowMs, maxIds);
    window.ready = restoreWindow(queue, window)
      .catch((error: unknown) =>
        this.logger.warn(
          error instanceof DeduplicationRestoreError
            ? error.message
            : `Topic ${queue.name}: the ids of its recent messages could not all be read back (${describeCause(error)}); ` +
                're-publishes of those are stored again',
        ),
      )
      .finally(() => (window.isReady = true));
    this.windows.set(queue.name, window);
  }
}

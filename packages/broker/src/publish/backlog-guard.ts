import { RETRY_AFTER_SECONDS } from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import { SubscriptionBacklogFullError } from './publish.errors';

/** A subscription with `backlogOverflow: 'reject'`, as the guard sees it. */
export interface RejectingSubscription {
  readonly consumerId: string;
  /** Messages of the topic it has not settled: the topic's tail minus its cursor. */
  readonly backlog: number;
  readonly maxBacklog: number;
}

/** How long a producer refused for a full backlog waits: the broker cannot know when the consumer catches up. */
export const BACKLOG_RETRY_AFTER_MS = RETRY_AFTER_SECONDS * 1000;

/**
 * Refuses publishes to a topic while one of its `reject` subscriptions has a full backlog (like RabbitMQ's
 * `overflow: reject-publish`). Subscriptions register while they run; a publish checks only those of its topics.
 * Publishes accepted together may take a backlog a little past its limit: the check comes before the write.
 */
@Injectable()
export class BacklogGuard {
  private readonly byTopic = new Map<string, Set<RejectingSubscription>>();

  add(topic: string, subscription: RejectingSubscription): void {
    const subscriptions = this.byTopic.get(topic);
    if (subscriptions) subscriptions.add(subscription);
    else this.byTopic.set(topic, new Set([subscription]));
  }

  remove(topic: string, subscription: RejectingSubscription): void {
    const subscriptions = this.byTopic.get(topic);
    if (subscriptions?.delete(subscription) && subscriptions.size === 0) this.byTopic.delete(topic);
  }

  /** @throws SubscriptionBacklogFullError naming the first full subscription of the topic */
  assertMayPublish(topic: string): void {
    const subscriptions = this.byTopic.get(topic);
    if (subscriptions === undefined) return;
    for (const subscription of subscriptions) {
      const { backlog, maxBacklog } = subscription;
      if (backlog >= maxBacklog) {
        throw new SubscriptionBacklogFullError(topic, subscription.consumerId, backlog, maxBacklog, BACKLOG_RETRY_AFTER_MS);
      }
    }
  }
}

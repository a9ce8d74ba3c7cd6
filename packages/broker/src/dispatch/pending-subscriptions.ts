import type { Topic } from '@mmmq/core';

/**
 * The subscriptions promised to topics that are being created but not attached yet: a publish creating a topic
 * passes `limits.maxSubscriptions` in its turn, while the topic's subscriptions start later (after its files open).
 * Counting these too makes the check and the reservation one step, so concurrent creations cannot all pass the cap.
 */
export class PendingSubscriptions {
  private readonly byTopic = new Map<string, { topic: Topic; consumerIds: Set<string> }>();

  constructor(
    /** Whether the topic is still opening or open: a topic whose creation failed promises nothing any more. */
    private readonly stillComing: (topic: string) => boolean,
  ) {}

  /** Promises the consumers' subscriptions to a topic being created. */
  reserve(topic: Topic, consumerIds: Iterable<string>): void {
    const pending = this.byTopic.get(topic.name);
    if (pending) for (const consumerId of consumerIds) pending.consumerIds.add(consumerId);
    else this.byTopic.set(topic.name, { topic, consumerIds: new Set(consumerIds) });
  }

  /** The topics still waiting for their subscriptions. */
  topics(): Topic[] {
    this.prune();
    return [...this.byTopic.values()].map(({ topic }) => topic);
  }

  /** A dispatcher was added or changed: it subscribes (or no longer does) when the pending topic attaches. */
  setMatch(topic: string, consumerId: string, matches: boolean): void {
    const pending = this.byTopic.get(topic);
    if (matches) pending?.consumerIds.add(consumerId);
    else pending?.consumerIds.delete(consumerId);
  }

  /** How many pending topics the consumer is promised a subscription to. */
  reservedFor(consumerId: string): number {
    this.prune();
    let count = 0;
    for (const { consumerIds } of this.byTopic.values()) if (consumerIds.has(consumerId)) count++;
    return count;
  }

  /** The consumer's subscription to the topic started (or is retrying): it counts as a subscription now. */
  started(topic: string, consumerId: string): void {
    this.byTopic.get(topic)?.consumerIds.delete(consumerId);
  }

  /** The topic attached: whatever it promised has started. */
  attached(topic: string): void {
    this.byTopic.delete(topic);
  }

  get count(): number {
    this.prune();
    let count = 0;
    for (const { consumerIds } of this.byTopic.values()) count += consumerIds.size;
    return count;
  }

  private prune(): void {
    for (const name of this.byTopic.keys()) if (!this.stillComing(name)) this.byTopic.delete(name);
  }
}

import { Injectable, Logger } from '@nestjs/common';
import { DispatcherRegistry } from '../dispatch/dispatcher-registry';
import { SubscriptionNotFoundError } from '../dispatch/dispatcher.errors';
import { Subscription } from '../dispatch/subscription';
import { SubscriptionContainer } from '../dispatch/subscription-container';
import { StorageUnavailableError } from '../storage/storage.errors';
import { SeekCounts, seekCounts, seekSnapshot } from './seek-plan';
import { SeekRequest } from './seek-request';
import { offsetAt } from '../topics/topic-position';
import { SubscriptionLockedError } from './seek.errors';

/** One subscription's part of a seek's answer. */
export interface SeekRow extends SeekCounts {
  topic: string;
  /** The cursor before. */
  from: number;
  /** The cursor after (the target, within what the topic retains). */
  to: number;
  /** Leases the seek ends (their messages are delivered again if at or after `to`). */
  released: number;
}

/** The answer to `POST /mmmq/consumers/{id}/seek`: per subscription, and the totals. */
export interface SeekResult extends SeekCounts {
  dryRun: boolean;
  released: number;
  subscriptions: SeekRow[];
}

/**
 * Replay and seek (docs/delivery.md, "Replay and seek"): moves a consumer's subscriptions — one topic, or every
 * topic it reads but the reserved ones — to an offset, a time, the beginning or the end. Each move ends the
 * subscription's leases and is journaled as its new state before it is answered, so it survives a crash; a dry run
 * only counts. An exclusive subscription held by another live member is refused, all or nothing, unless forced.
 */
@Injectable()
export class SeekService {
  private readonly logger = new Logger(SeekService.name);

  constructor(
    private readonly registry: DispatcherRegistry,
    private readonly subscriptions: SubscriptionContainer,
  ) {}

  /**
   * @throws DispatcherNotFoundError, SubscriptionNotFoundError (404), SubscriptionLockedError (409)
   * @throws StorageUnavailableError when a subscription stopped before its move was durable (a dispatcher change, shutdown)
   */
  async seek(consumerId: string, request: SeekRequest): Promise<SeekResult> {
    this.registry.get(consumerId);
    const subscriptions = this.targetsOf(consumerId, request.topic);
    if (!request.force) {
      for (const subscription of subscriptions) {
        const holder = subscription.lockedBy(request.member);
        if (holder !== undefined) throw new SubscriptionLockedError(consumerId, subscription.queue.topic.name, holder);
      }
    }
    const targets = await Promise.all(subscriptions.map((subscription) => offsetAt(subscription.queue, request.to)));
    const rows = await Promise.all(
      subscriptions.map((subscription, i) => (request.dryRun ? preview(subscription, targets[i]) : this.move(subscription, targets[i]))),
    );
    const total = (field: 'redeliver' | 'skip' | 'released') => rows.reduce((sum, row) => sum + row[field], 0);
    return { dryRun: request.dryRun, redeliver: total('redeliver'), skip: total('skip'), released: total('released'), subscriptions: rows };
  }

  private targetsOf(consumerId: string, topic: string | undefined): Subscription[] {
    if (topic === undefined)
      return this.subscriptions.subscriptionsOf(consumerId).filter((subscription) => !subscription.queue.topic.isReserved);
    const subscription = this.subscriptions.subscriptionOf(consumerId, topic);
    if (!subscription) throw new SubscriptionNotFoundError(consumerId, topic);
    return [subscription];
  }

  private async move(subscription: Subscription, target: number): Promise<SeekRow> {
    const from = subscription.position;
    let counts: SeekCounts = { redeliver: 0, skip: 0 };
    // Counted on the state the move replaces, in the same turn.
    const released = await subscription.restartAt((current) => {
      counts = seekCounts(current, target, subscription.queue.tailOffset);
      return seekSnapshot(current, target);
    });
    if (released === false) {
      throw new StorageUnavailableError(`The subscription ${subscription.label()} stopped before its seek was durable; retry`);
    }
    this.logger.log(
      `${subscription.label()}: seek from ${from} to ${target} (re-delivers ${counts.redeliver}, skips ${counts.skip}, ended ${released} leases)`,
    );
    return { topic: subscription.queue.topic.name, from, to: target, ...counts, released };
  }
}

function preview(subscription: Subscription, target: number): SeekRow {
  const counts = seekCounts(subscription.stateSnapshot(), target, subscription.queue.tailOffset);
  return { topic: subscription.queue.topic.name, from: subscription.position, to: target, ...counts, released: subscription.leased };
}

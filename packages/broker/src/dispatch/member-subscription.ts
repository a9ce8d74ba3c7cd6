import type { TopicQueue } from '../storage/topic-queue';
import type { DispatcherDefinition } from './dispatcher-definition';
import type { Unsettled } from './ledger/delivery-ledger';
import type { Slot } from './ledger/slot';
import type { SubscriptionStats } from './subscription-stats';

/** Why a message leaves its subscription without an ACK: the dead letter's reason. */
export type TerminationReason = 'REJECTED' | 'TERMINATED' | 'TOO_LARGE';

/** How a consumer's reply settles a leased message; {@link Subscription} implements it. */
export interface SettlingSubscription {
  ack(slot: Slot, delivery?: number): void;
  release(slot: Slot, how: Unsettled, delivery?: number): Promise<boolean>;
  terminate(slot: Slot, reason: TerminationReason, message: string, counted?: boolean): Promise<boolean>;
}

/**
 * What a push member asks of the subscription it delivers for. The subscription creates its members, so they see it
 * through this interface rather than importing it.
 */
export interface MemberSubscription extends SettlingSubscription {
  readonly definition: DispatcherDefinition;
  readonly queue: TopicQueue;
  readonly stats: SubscriptionStats;
  acquire(member: string, max: number, maxBytes: number, leaseMs: number): Promise<Slot[]>;
  deliveryBody(slot: Slot): Buffer;
  seen(member: string): void;
  failing(member: string): void;
  label(): string;
}

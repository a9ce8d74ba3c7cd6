import type { TransportDelivery } from '@mmmq/core';
import type { Slot } from '../dispatch/ledger/slot';
import type { Subscription } from '../dispatch/subscription';

/**
 * A leased message as an in-process listener gets it: the fields of the push and fetch body (docs/delivery.md § What
 * the consumer receives), with the content parsed from the stored bytes — what a remote consumer parses from them.
 * @throws SyntaxError when the stored content is not JSON (it was checked at publish: a corrupt record)
 */
export function inProcessDelivery(subscription: Subscription, slot: Slot): TransportDelivery {
  const envelope = slot.envelope!;
  const delivery: TransportDelivery = {
    id: envelope.id ?? `${envelope.topic}@${slot.offset}`,
    topic: envelope.topic,
    content: JSON.parse(envelope.content.toString()) as unknown,
    headers: envelope.headers,
    offset: slot.offset,
    deliveryCount: slot.deliveries,
    redelivered: slot.deliveries > 1,
    publishedAt: envelope.publishedAt,
    lastAttempt: subscription.isLastAttempt(slot),
  };
  if (envelope.expiresAt !== undefined) delivery.expiresAt = envelope.expiresAt;
  if (envelope.priority !== undefined) delivery.priority = envelope.priority;
  return delivery;
}

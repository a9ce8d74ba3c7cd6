import { Acknowledgement, type ConsumerAcknowledgement } from '@mmmq/core';
import type { Slot } from './ledger/slot';
import type { SettlingSubscription } from './member-subscription';

/** The longest `delayMs` a NACK may ask for: an hour. */
const MAX_NACK_DELAY_MS = 3_600_000;

/**
 * Applies a consumer's reply to delivery number `delivery` of a leased message, whatever member it came through (a
 * push, an in-process listener): an ACK settles it; a NACK with `retry: false` dead-letters it at once (reason
 * `REJECTED`); another NACK gives it back, counted, after its `delayMs` when that is sensible — or dead-letters it,
 * when it was the last attempt. A reply to an older delivery changes nothing.
 * @returns for a NACK, what the release resolves with: once applied, and once durable when it dead-letters (the dead
 * letter and the move past the message in one record); false when it changed nothing
 */
export function applyConsumerReply(
  subscription: SettlingSubscription,
  slot: Slot,
  delivery: number,
  reply: ConsumerAcknowledgement,
): Promise<boolean> | undefined {
  if (reply.acknowledgement === Acknowledgement.ACK) {
    subscription.ack(slot, delivery);
    return undefined;
  }
  if (slot.deliveries !== delivery) return undefined;
  if (reply.retry === false) return subscription.terminate(slot, 'REJECTED', reply.message ?? 'NACK without a message');
  return subscription.release(
    slot,
    { outcome: 'NACK', counted: true, nack: { message: reply.message }, delayMs: delayOf(reply) },
    delivery,
  );
}

/** A NACK's `delayMs`, when it is a sensible one (at most an hour). */
function delayOf(reply: ConsumerAcknowledgement): number | undefined {
  const { delayMs } = reply;
  return typeof delayMs === 'number' && delayMs > 0 && delayMs <= MAX_NACK_DELAY_MS ? delayMs : undefined;
}

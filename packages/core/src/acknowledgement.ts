import { DeliveryMode, DELIVERY_MODES } from './delivery-mode';
import type { Reply } from './reply/reply';

export const Acknowledgement = { ACK: 'ACK', NACK: 'NACK' } as const;
export type Acknowledgement = (typeof Acknowledgement)[keyof typeof Acknowledgement];

/**
 * What the broker answers a producer; on ACK `id`, `topic` and `offset` say where the message was stored. The ACK
 * of a nonPersistent message (`deliveryMode`) is sent on receipt and has no offset.
 */
export interface BrokerAcknowledgement {
  acknowledgement: Acknowledgement;
  id?: string;
  topic?: string;
  offset?: number;
  /** On ACK: how the message was acknowledged; absent from brokers before delivery modes (persistent). */
  deliveryMode?: DeliveryMode;
  /** Why a NACK happened, for humans. */
  message?: string;
  /**
   * On the publish stream, which has no headers: what HTTP says with `Retry-After` (seconds) on a 429 or 503.
   */
  retryAfterSeconds?: number;
}

/** What a consumer answers a delivery. */
export interface ConsumerAcknowledgement {
  acknowledgement: Acknowledgement;
  message?: string;
  /**
   * With NACK: `false` means retrying cannot help (a poison message, invalid content), so the broker
   * dead-letters it at once instead of resending it. Default true.
   */
  retry?: boolean;
  /** With NACK: deliver the message again not before this many ms (at most an hour). Default: at once. */
  delayMs?: number;
  /**
   * The reply to the message, when it is a request and the push said the broker relays replies carried this way
   * (`mmmq-settlement-replies: 1`): the broker relays it as it reads the acknowledgement, instead of a reply request.
   */
  reply?: Reply;
}

export function isAcknowledgement(value: unknown): value is Acknowledgement {
  return value === Acknowledgement.ACK || value === Acknowledgement.NACK;
}

/** Checks a parsed consumer response body; anything else counts as a failed delivery. */
export function isConsumerAcknowledgement(value: unknown): value is ConsumerAcknowledgement {
  return (
    isObject(value) &&
    isAcknowledgement(value.acknowledgement) &&
    (value.message === undefined || typeof value.message === 'string') &&
    (value.retry === undefined || typeof value.retry === 'boolean') &&
    (value.reply === undefined || isObject(value.reply))
  );
}

/** Checks a parsed broker response body before a producer trusts it. */
export function isBrokerAcknowledgement(value: unknown): value is BrokerAcknowledgement {
  return (
    isObject(value) &&
    isAcknowledgement(value.acknowledgement) &&
    (value.id === undefined || typeof value.id === 'string') &&
    (value.topic === undefined || typeof value.topic === 'string') &&
    (value.offset === undefined || Number.isSafeInteger(value.offset)) &&
    (value.deliveryMode === undefined || DELIVERY_MODES.includes(value.deliveryMode as DeliveryMode)) &&
    (value.message === undefined || typeof value.message === 'string') &&
    (value.retryAfterSeconds === undefined || Number.isSafeInteger(value.retryAfterSeconds))
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

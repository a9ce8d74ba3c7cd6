import { MmmqValidationError } from '@mmmq/core';
import { parseConsumerId } from '../dispatch/dispatcher-definition';
import { LeaseRef, parseLeaseToken } from '../dispatch/ledger/lease-token';
import type { PublishableMessage } from '../format/publishable-message';

/** The most inputs one transaction settles. */
export const MAX_TRANSACTION_INPUTS = 1000;

/** A lease a transaction settles: which message, which delivery of it. */
export interface TransactionInputRef extends Required<LeaseRef> {
  lease: string;
}

/** A validated `POST /mmmq/transactions`. */
export interface TransactionRequest {
  consumerId: string;
  inputs: TransactionInputRef[];
  messages: PublishableMessage[];
}

const FIELDS = ['consumerId', 'settle', 'messages'];

/**
 * Reads the fields besides `messages` (parsed as a batch's): `consumerId`, and `settle` — lease tokens, or
 * `{"lease"}` objects whose optional `topic` / `offset` must agree with the lease — all of one topic, none twice.
 */
export function parseTransactionRequest(fields: Record<string, unknown>, messages: PublishableMessage[]): TransactionRequest {
  const unknown = Object.keys(fields).filter((key) => !FIELDS.includes(key));
  if (unknown.length > 0) throw new MmmqValidationError(`unknown field(s) ${unknown.join(', ')}`);
  const consumerId = parseConsumerId(fields.consumerId);
  const settle = fields.settle;
  if (!Array.isArray(settle) || settle.length === 0 || settle.length > MAX_TRANSACTION_INPUTS) {
    throw new MmmqValidationError(`settle must be an array of 1 to ${MAX_TRANSACTION_INPUTS} leases (the inputs' "lease" tokens)`);
  }
  const inputs = settle.map(parseInput);
  const topics = new Set(inputs.map((input) => input.topic));
  if (topics.size > 1) {
    throw new MmmqValidationError(
      `settle names messages of ${[...topics].join(', ')}; the inputs of one transaction must come from one topic`,
    );
  }
  if (new Set(inputs.map((input) => input.offset)).size !== inputs.length) {
    throw new MmmqValidationError('settle names one message twice');
  }
  return { consumerId, inputs, messages };
}

function parseInput(item: unknown, i: number): TransactionInputRef {
  const record = typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>) : undefined;
  const token = record ? record.lease : item;
  const ref = typeof token === 'string' ? parseLeaseToken(token) : undefined;
  if (!ref || ref.delivery === undefined) {
    throw new MmmqValidationError(`settle[${i}] must be a lease token as delivered ("lease"), or {"lease": …}`);
  }
  if (record) {
    const extra = Object.keys(record).filter((key) => !['lease', 'topic', 'offset'].includes(key));
    if (extra.length > 0) throw new MmmqValidationError(`settle[${i}] has unknown field(s) ${extra.join(', ')}`);
    if ((record.topic !== undefined && record.topic !== ref.topic) || (record.offset !== undefined && record.offset !== ref.offset)) {
      throw new MmmqValidationError(`settle[${i}]: topic and offset must be those of its lease ${token as string}`);
    }
  }
  return { topic: ref.topic, offset: ref.offset, delivery: ref.delivery, lease: token as string };
}

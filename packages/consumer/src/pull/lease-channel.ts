import type { PublishedMessage, PublishRequest } from '@mmmq/core';
import { BrokerRequestError } from '../errors/broker-request.error';
import { LeaseLostError } from '../errors/lease-lost.error';
import type { PullClient } from './pull-client';

/** `context.inProgress()` for a delivery with a lease: `POST …/extend` with that lease. */
export async function extendLease(client: PullClient, consumerId: string, lease: string, ackTimeoutMs?: number): Promise<void> {
  const { lost } = await client.extend(consumerId, [lease], ackTimeoutMs);
  if (lost.includes(lease)) throw lostLease(consumerId, lease, 'extended');
}

/** HTTP 409: the broker refused a transaction because an input's lease is no longer held. */
const CONFLICT = 409;

/** `context.transaction()` for a delivery with a lease: `POST /mmmq/transactions` settling that lease. */
export async function commitWithLease(
  client: PullClient,
  consumerId: string,
  lease: string,
  messages: readonly PublishRequest[],
): Promise<PublishedMessage[]> {
  try {
    return await client.transaction(consumerId, [lease], messages);
  } catch (error) {
    if (error instanceof BrokerRequestError && error.status === CONFLICT) {
      throw lostLease(consumerId, lease, 'settled by its transaction (nothing was published)', error);
    }
    throw error;
  }
}

export function lostLease(consumerId: string, lease: string, what: string, cause?: unknown): LeaseLostError {
  return new LeaseLostError(
    `The message with lease ${lease} of ${consumerId} could not be ${what}: the broker no longer holds this lease ` +
      `(it expired, or the message went to another member or was settled), so it is delivered again`,
    { cause },
  );
}

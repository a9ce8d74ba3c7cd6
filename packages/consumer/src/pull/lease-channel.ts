import type { PublishedMessage, PublishRequest } from '@mmmq/core';
import { BrokerRequestError } from '../errors/broker-request.error';
import { LeaseLostError } from '../errors/lease-lost.error';
import type { SettleDecision, SettlementChannel } from '../handling/settlement';
import type { PullClient } from './pull-client';

const PAST: Record<SettleDecision['kind'], string> = { ack: 'acknowledged', nack: 'NACKed', terminate: 'terminated' };

/** `context.inProgress()` for a delivery with a lease: `POST …/extend` with that lease. */
export function leaseExtender(client: PullClient, consumerId: string, lease: string, ackTimeoutMs?: number): () => Promise<void> {
  return async () => {
    const { lost } = await client.extend(consumerId, [lease], ackTimeoutMs);
    if (lost.includes(lease)) throw lostLease(consumerId, lease, 'extended');
  };
}

/** HTTP 409: the broker refused a transaction because an input's lease is no longer held. */
const CONFLICT = 409;

/** `context.transaction()` for a delivery with a lease: `POST /mmmq/transactions` settling that lease. */
export function transactionCommitter(
  client: PullClient,
  consumerId: string,
  lease: string,
): (messages: PublishRequest[]) => Promise<PublishedMessage[]> {
  return async (messages) => {
    try {
      return await client.transaction(consumerId, [lease], messages);
    } catch (error) {
      if (error instanceof BrokerRequestError && error.status === CONFLICT) {
        throw lostLease(consumerId, lease, 'settled by its transaction (nothing was published)', error);
      }
      throw error;
    }
  };
}

/**
 * `manual` mode when pulling: the handler's decision goes to the broker at once (`ack` through the listener's
 * batcher, `nack` and `terminate` on their own), so `await context.ack()` returns once it is durable.
 */
export function pulledSettlement(
  client: PullClient,
  consumerId: string,
  lease: string,
  ack: (lease: string) => Promise<boolean>,
  ackTimeoutMs?: number,
): SettlementChannel {
  return {
    extend: leaseExtender(client, consumerId, lease, ackTimeoutMs),
    commit: transactionCommitter(client, consumerId, lease),
    async settle(decision: SettleDecision): Promise<void> {
      const held = await sendDecision(client, consumerId, lease, decision, ack);
      if (!held) throw lostLease(consumerId, lease, PAST[decision.kind]);
    },
  };
}

/** @returns false when the broker no longer held the lease */
export async function sendDecision(
  client: PullClient,
  consumerId: string,
  lease: string,
  decision: SettleDecision,
  ack: (lease: string) => Promise<boolean>,
): Promise<boolean> {
  switch (decision.kind) {
    case 'ack':
      return ack(lease);
    case 'nack':
      return !(await client.nack(consumerId, [lease], decision.delayMs)).lost.includes(lease);
    case 'terminate':
      return !(await client.terminate(consumerId, [lease], decision.reason)).lost.includes(lease);
  }
}

function lostLease(consumerId: string, lease: string, what: string, cause?: unknown): LeaseLostError {
  return new LeaseLostError(
    `The message with lease ${lease} of ${consumerId} could not be ${what}: the broker no longer holds this lease ` +
      `(it expired, or the message went to another member or was settled), so it is delivered again`,
    { cause },
  );
}

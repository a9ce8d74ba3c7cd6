import { MmmqError } from '@mmmq/core';
import type { TransactionRunner } from '@mmmq/postgres';
import type { EntityManager } from 'typeorm';

/** Thrown after a charge committed, when the demo switch `BILLING_LOSE_FIRST_ACK=1` is on. */
export class SimulatedLostAcknowledgementError extends MmmqError {}

/**
 * The demo switch `BILLING_LOSE_FIRST_ACK=1`: the transaction that charged for a message commits, then its runner
 * throws — as when the connection drops while COMMIT's answer is on its way, or the process dies right after
 * COMMIT. The consumer cannot tell a committed charge from a failed one, so the message is NACKed and the broker
 * delivers it again: a real second delivery, which the inbox recognises. Only the first delivery of a message that
 * charged loses its acknowledgement, so each message is delivered twice and its redelivery is acknowledged.
 */
export class LostAcknowledgements {
  /** Transactions that charged, with the message they charged for, until their runner has committed them. */
  private readonly charged = new WeakMap<EntityManager, string>();
  /** The messages whose acknowledgement was lost already (a demo switch: it grows with every message charged). */
  private readonly lostFor = new Set<string>();

  constructor(readonly enabled: boolean) {}

  /** How many acknowledgements were lost on purpose. */
  get lost(): number {
    return this.lostFor.size;
  }

  /** The inbox's transaction runner, losing acknowledgements when the switch is on. */
  wrap(transaction: TransactionRunner<EntityManager>): TransactionRunner<EntityManager> {
    if (!this.enabled) return transaction;
    return async (work) => {
      let manager: EntityManager | undefined;
      const result = await transaction((tx) => {
        manager = tx;
        return work(tx);
      });
      const messageId = manager === undefined ? undefined : this.charged.get(manager);
      if (manager === undefined || messageId === undefined) return result;
      this.charged.delete(manager);
      if (this.lostFor.has(messageId)) return result;
      this.lostFor.add(messageId);
      throw new SimulatedLostAcknowledgementError(
        `the charge for message ${messageId} is committed, but its acknowledgement is lost on purpose ` +
          '(BILLING_LOSE_FIRST_ACK=1): the broker will deliver it again',
      );
    };
  }

  /** Called by the listener in the transaction it charged in. */
  chargedIn(manager: EntityManager, messageId: string): void {
    if (this.enabled) this.charged.set(manager, messageId);
  }
}

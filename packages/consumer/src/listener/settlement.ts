import { Acknowledgement, ConsumerAcknowledgement, MAX_NACK_DELAY_MS, PublishedMessage, PublishRequest } from '@mmmq/core';
import { SettlementError } from '../errors/settlement.error';
import type { AckMode } from './ack-mode';
import { Transaction } from './transaction';

/** What a handler decided about its message in `manual` mode. */
export type SettleDecision = { kind: 'ack' } | { kind: 'nack'; delayMs?: number; message?: string } | { kind: 'terminate'; reason: string };

/** A push reply: a consumer acknowledgement, which may ask for a delayed redelivery. */
export type ConsumerReply = ConsumerAcknowledgement;

/** How a decision reaches the broker before the handler returns (pull), and how a lease is extended. */
export interface SettlementChannel {
  /** Sends the decision now; resolves once the broker holds it durably. Absent: the reply carries it (push). */
  settle?(decision: SettleDecision): Promise<void>;
  /** Extends the message's lease (`POST …/extend`). Absent: not possible for this delivery. */
  extend?(): Promise<void>;
  /** Why `extend` is absent, for the error message. */
  extendUnavailable?: string;
  /**
   * Settles the delivery and publishes `messages` in one broker commit (`POST /mmmq/transactions`). Rejects with
   * LeaseLostError when the lease is no longer held (nothing was published). Absent: not possible for this delivery.
   */
  commit?(messages: PublishRequest[]): Promise<PublishedMessage[]>;
  /** Why `commit` is absent, for the error message. */
  commitUnavailable?: string;
}

/**
 * The settlement of one delivery, behind `MessageContext.ack()` / `nack()` / `terminate()` / `inProgress()`.
 * Only `manual` listeners may settle; each message is settled once, before its handler returns.
 */
export class Settlement {
  private settled: SettleDecision | undefined;
  private sentByChannel = false;
  private handlerReturned = false;
  /** Where the delivery's one transaction stands, once `transaction()` was called. */
  private transactionState?: 'running' | 'failed' | 'committed';

  constructor(
    private readonly where: string,
    readonly mode: AckMode,
    private readonly channel: SettlementChannel = {},
  ) {}

  /** The handler's decision, if it made one. */
  get decision(): SettleDecision | undefined {
    return this.settled;
  }

  /** True when the channel already sent the decision to the broker, so nobody may send it again. */
  get sent(): boolean {
    return this.sentByChannel;
  }

  /** @throws SettlementError synchronously: not `manual`, settled already, or after the handler returned */
  settle(decision: SettleDecision, call: string): Promise<void> {
    if (this.mode !== 'manual') {
      throw new SettlementError(
        `${this.where} called context.${call}, which needs ackMode 'manual'; this listener uses '${this.mode}', ` +
          `where the consumer settles every message itself`,
      );
    }
    if (this.settled !== undefined) {
      throw new SettlementError(`${this.where} called context.${call} on a message it already settled with ${this.describeSettled()}`);
    }
    if (this.transactionState === 'running') {
      throw new SettlementError(`${this.where} called context.${call} while its transaction runs; the transaction settles the message`);
    }
    if (this.handlerReturned) {
      throw new SettlementError(
        `${this.where} called context.${call} after its handler returned; the message was NACKed then. Settle ` +
          `before the handler's promise resolves (await the work, then call ack())`,
      );
    }
    if (decision.kind === 'nack' && decision.delayMs !== undefined) checkDelay(this.where, decision.delayMs);
    this.settled = decision;
    if (this.channel.settle === undefined) return Promise.resolve();
    this.sentByChannel = true;
    return this.channel.settle(decision);
  }

  /** @throws SettlementError synchronously: `none` mode, or settled already */
  inProgress(): Promise<void> {
    if (this.mode === 'none') {
      throw new SettlementError(`${this.where} called context.inProgress(); with ackMode 'none' the message is settled already`);
    }
    if (this.settled !== undefined) {
      throw new SettlementError(`${this.where} called context.inProgress() on a message it already settled with ${this.describeSettled()}`);
    }
    if (this.channel.extend === undefined) {
      return Promise.reject(
        new SettlementError(
          `${this.where} called context.inProgress(), but ${this.channel.extendUnavailable ?? 'the lease cannot be extended'}`,
        ),
      );
    }
    return this.channel.extend();
  }

  /**
   * Runs `work`, collecting the outputs it produces, then settles the delivery and publishes them in one broker
   * commit; resolves with what `work` returned once both are durable. Nothing is published when `work` throws or the
   * commit fails (the message is then NACKed as usual, or redelivered). Once per delivery, in any ack mode but `none`.
   * @throws SettlementError when it cannot be used here (see the messages)
   */
  async transaction<T>(work: (tx: Transaction) => T | Promise<T>): Promise<T> {
    if (this.mode === 'none') {
      throw new SettlementError(`${this.where} called context.transaction(); with ackMode 'none' the message is settled already`);
    }
    if (this.transactionState !== undefined) {
      throw new SettlementError(`${this.where} called context.transaction() a second time; a delivery has one transaction at most`);
    }
    if (this.settled !== undefined || this.handlerReturned) {
      throw new SettlementError(`${this.where} called context.transaction() on a message it already settled or after its handler returned`);
    }
    const commit = this.channel.commit;
    if (commit === undefined) {
      throw new SettlementError(
        `${this.where} called context.transaction(), but ${this.channel.commitUnavailable ?? 'this delivery cannot be settled by a transaction'}`,
      );
    }
    this.transactionState = 'running';
    try {
      const tx = new Transaction(this.where);
      let result: T;
      try {
        result = await work(tx);
      } finally {
        tx.close();
      }
      await commit(tx.close());
      this.settled = { kind: 'ack' };
      this.sentByChannel = true;
      this.transactionState = 'committed';
      return result;
    } finally {
      if (this.transactionState === 'running') this.transactionState = 'failed';
    }
  }

  private describeSettled(): string {
    return this.transactionState === 'committed' ? 'its transaction' : this.settled!.kind;
  }

  /** The handler has returned (or thrown): later settle calls fail instead of being lost. */
  close(): void {
    this.handlerReturned = true;
  }
}

/** The push reply that carries a decision. `terminate` is a NACK without retry: dead-lettered at once. */
export function replyFor(decision: SettleDecision): ConsumerReply {
  switch (decision.kind) {
    case 'ack':
      return { acknowledgement: Acknowledgement.ACK };
    case 'nack':
      return {
        acknowledgement: Acknowledgement.NACK,
        ...(decision.message === undefined ? {} : { message: decision.message }),
        ...(decision.delayMs === undefined ? {} : { delayMs: decision.delayMs }),
      };
    case 'terminate':
      return { acknowledgement: Acknowledgement.NACK, retry: false, message: decision.reason };
  }
}

function checkDelay(where: string, delayMs: unknown): void {
  if (typeof delayMs !== 'number' || !Number.isSafeInteger(delayMs) || delayMs < 0 || delayMs > MAX_NACK_DELAY_MS) {
    throw new SettlementError(
      `${where} called context.nack({ delayMs }) with ${String(delayMs)}; delayMs must be an integer from 0 to ${MAX_NACK_DELAY_MS}`,
    );
  }
}

import type { CommitPart } from '../storage/journal/journal-commit';
import { Slot, SlotState } from './ledger/slot';
import { StaleLeaseError } from './transaction.errors';

/** One input of a transaction: a leased message, named by its delivery (the lease's fence). */
export interface TransactionInput {
  slot: Slot;
  delivery: number;
  /** The lease token, for the refusal. */
  lease: string;
}

/** A transaction waiting for its subscription's next state write. */
export interface PendingTransaction {
  inputs: readonly TransactionInput[];
  /** Its output messages, as journal parts (see PublishIntake.prepare). */
  parts: readonly CommitPart[];
  /** The journal's first offset of each of `parts`, once the record holding them is applied. */
  resolve(firstOffsets: Array<number | undefined>): void;
  reject(error: Error): void;
}

/** The transactions one state write takes: they share its journal record. */
export interface TransactionBatch {
  transactions: PendingTransaction[];
  /** Every input offset: settled in the record's snapshot. */
  offsets: Set<number>;
  parts: CommitPart[];
}

/**
 * The transactions of one subscription: they wait for its state writer, which puts the outputs of all those
 * waiting and a snapshot with their inputs settled into one journal record — so the writer, which writes one state
 * at a time, never has a snapshot in flight that says otherwise. While that record is written its inputs are
 * pinned: a release (NACK, expiry, failed push, recover, terminate) waits for the outcome, and is dropped if the
 * record commits, applied if it fails. An ACK meanwhile settles the input as usual (both say settled).
 */
export class SubscriptionTransactions {
  private queue: PendingTransaction[] = [];
  /** Inputs of the record being written, and what waits for its outcome. */
  private readonly pinned = new Map<Slot, Array<(settledByTransaction: boolean) => void>>();

  get waiting(): boolean {
    return this.queue.length > 0;
  }

  add(transaction: PendingTransaction): void {
    this.queue.push(transaction);
  }

  /**
   * Takes every waiting transaction whose inputs are still leased as their leases say (the others are refused with
   * StaleLeaseError: redelivered, expired or settled meanwhile), and pins their inputs.
   */
  take(): TransactionBatch {
    const batch: TransactionBatch = { transactions: [], offsets: new Set(), parts: [] };
    const waiting = this.queue;
    this.queue = [];
    for (const transaction of waiting) {
      const stale = transaction.inputs.find(
        ({ slot, delivery }) => slot.state !== SlotState.LEASED || slot.deliveries !== delivery || this.pinned.has(slot),
      );
      if (stale) {
        transaction.reject(new StaleLeaseError(stale.lease));
        continue;
      }
      for (const { slot } of transaction.inputs) {
        this.pinned.set(slot, []);
        batch.offsets.add(slot.offset);
      }
      batch.transactions.push(transaction);
      batch.parts.push(...transaction.parts);
    }
    return batch;
  }

  /**
   * Runs `action` now, or — while `slot` is pinned — once the record pinning it is applied (`true`: the transaction
   * settled it) or failed (`false`).
   */
  whenUnpinned(slot: Slot, action: (settledByTransaction: boolean) => void): void {
    const deferred = this.pinned.get(slot);
    if (deferred) deferred.push(action);
    else action(false);
  }

  /** The batch's record is applied (its inputs settled by the caller): what waited for them learns so. */
  committed(batch: TransactionBatch, firstOffsets: Array<number | undefined>): void {
    let at = 0;
    for (const transaction of batch.transactions) {
      for (const action of this.unpin(transaction)) action(true);
      transaction.resolve(firstOffsets.slice(at, at + transaction.parts.length));
      at += transaction.parts.length;
    }
  }

  /** The batch's record failed: nothing of it was written; the inputs stay leased, and what waited on them runs. */
  failed(batch: TransactionBatch, error: Error): void {
    for (const transaction of batch.transactions) {
      for (const action of this.unpin(transaction)) action(false);
      transaction.reject(error);
    }
  }

  /** The subscription stopped: waiting transactions are refused. */
  close(error: Error): void {
    for (const transaction of this.queue.splice(0)) transaction.reject(error);
  }

  private unpin(transaction: PendingTransaction): Array<(settledByTransaction: boolean) => void> {
    const actions: Array<(settledByTransaction: boolean) => void> = [];
    for (const { slot } of transaction.inputs) {
      actions.push(...(this.pinned.get(slot) ?? []));
      this.pinned.delete(slot);
    }
    return actions;
  }
}

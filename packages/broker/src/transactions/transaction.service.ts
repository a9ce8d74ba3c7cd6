import type { PublishedMessage } from '@mmmq/core';
import { Injectable } from '@nestjs/common';
import { DispatcherRegistry } from '../dispatch/dispatcher-registry';
import { SubscriptionContainer } from '../dispatch/subscription-container';
import { TransactionInput } from '../dispatch/subscription-transactions';
import { StaleLeaseError } from '../dispatch/transaction.errors';
import { PublishIntake } from '../publish/publish-intake';
import { TransactionRequest } from './transaction-request';

/** What a committed transaction did. */
export interface TransactionResult {
  messages: PublishedMessage[];
  settled: number;
}

/**
 * Transacted consumption: settles a consumer's inputs and publishes its outputs atomically. The outputs are
 * prepared like a publish (disk guard, writable topics), then handed to the inputs' subscription, whose next
 * state write puts them and its state with the inputs settled into one journal record (see
 * SubscriptionTransactions): after a crash both are there or neither is.
 */
@Injectable()
export class TransactionService {
  constructor(
    private readonly registry: DispatcherRegistry,
    private readonly subscriptions: SubscriptionContainer,
    private readonly intake: PublishIntake,
  ) {}

  /** @throws StaleLeaseError when an input is no longer leased as named (nothing published) */
  async commit({ consumerId, inputs: refs, messages }: TransactionRequest): Promise<TransactionResult> {
    this.registry.get(consumerId);
    const subscription = this.subscriptions.subscriptionOf(consumerId, refs[0].topic);
    if (!subscription) throw new StaleLeaseError(refs[0].lease);
    const inputs: TransactionInput[] = refs.map(({ offset, delivery, lease }) => {
      const slot = subscription.leaseAt(offset, delivery);
      if (!slot) throw new StaleLeaseError(lease);
      return { slot, delivery, lease };
    });
    const started = this.intake.startClock();
    const prepared = messages.length > 0 ? await this.intake.prepare(messages) : undefined;
    const members = new Set(inputs.map(({ slot }) => slot.member));
    const firstOffsets = await subscription.commitTransaction(inputs, prepared?.parts ?? []).then(
      (offsets) => (prepared?.release(offsets), offsets),
      (error: unknown) => {
        prepared?.release();
        throw error;
      },
    );
    if (prepared) this.intake.observeCommitted(prepared.parts, started);
    for (const member of members) if (member) subscription.seen(member);
    return { messages: prepared?.published(firstOffsets) ?? [], settled: inputs.length };
  }
}

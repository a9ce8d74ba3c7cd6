import { Injectable } from '@nestjs/common';

export interface LedgerEntry {
  orderId: string;
  kind: 'invoice' | 'refund';
  amount: number;
  /** Why the order was refunded; refunds only. */
  reason?: string;
}

/**
 * Billing's book of invoices and refunds, kept in memory for the example.
 *
 * `order.created` and `order.cancelled` are two topics, and the broker keeps order only within a topic: a
 * cancellation may arrive before the invoice of its order (it does whenever the invoice subscription is busy, with
 * older messages for instance). Such a cancellation is held and refunded as soon as the invoice is recorded.
 */
@Injectable()
export class Ledger {
  readonly entries: LedgerEntry[] = [];
  private readonly invoiced = new Map<string, number>();
  /** Cancellations that arrived before their order's invoice: order id → reason. */
  private readonly heldCancellations = new Map<string, string>();

  /**
   * Records an invoice once per order, so a redelivered event does not bill twice; followed by the order's refund
   * when its cancellation arrived first. Returns the entries it added (none for a duplicate).
   */
  invoice(orderId: string, amount: number): LedgerEntry[] {
    if (this.invoiced.has(orderId)) return [];
    this.invoiced.set(orderId, amount);
    const added = [this.record({ orderId, kind: 'invoice', amount })];
    const reason = this.heldCancellations.get(orderId);
    if (reason !== undefined) {
      this.heldCancellations.delete(orderId);
      added.push(this.record({ orderId, kind: 'refund', amount, reason }));
    }
    return added;
  }

  /**
   * Refunds what was invoiced, once. A cancellation whose invoice has not arrived yet is held until it does:
   * `'held'`. A cancellation already refunded (a redelivery) adds nothing: `undefined`.
   */
  cancel(orderId: string, reason: string): LedgerEntry | 'held' | undefined {
    const amount = this.invoiced.get(orderId);
    if (amount === undefined) {
      this.heldCancellations.set(orderId, reason);
      return 'held';
    }
    if (this.entries.some((entry) => entry.orderId === orderId && entry.kind === 'refund')) return undefined;
    return this.record({ orderId, kind: 'refund', amount, reason });
  }

  private record(entry: LedgerEntry): LedgerEntry {
    this.entries.push(entry);
    return entry;
  }
}

/** The log line of a refund, the same whichever event completed it. */
export function describeRefund(refund: LedgerEntry): string {
  return `Refund for order ${refund.orderId}: ${refund.amount.toFixed(2)} (${refund.reason})`;
}

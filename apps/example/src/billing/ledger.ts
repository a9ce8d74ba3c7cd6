import { Injectable } from '@nestjs/common';

export interface LedgerEntry {
  orderId: string;
  kind: 'invoice' | 'refund';
  amount: number;
}

/** Billing's book of invoices and refunds, kept in memory for the example. */
@Injectable()
export class Ledger {
  readonly entries: LedgerEntry[] = [];
  private readonly invoiced = new Map<string, number>();

  /** Records an invoice once per order, so a redelivered event does not bill twice. */
  invoice(orderId: string, amount: number): boolean {
    if (this.invoiced.has(orderId)) return false;
    this.invoiced.set(orderId, amount);
    this.entries.push({ orderId, kind: 'invoice', amount });
    return true;
  }

  /** Refunds what was invoiced; returns the amount, or undefined when there was nothing to refund. */
  refund(orderId: string): number | undefined {
    const amount = this.invoiced.get(orderId);
    if (amount === undefined || this.entries.some((entry) => entry.orderId === orderId && entry.kind === 'refund')) {
      return undefined;
    }
    this.entries.push({ orderId, kind: 'refund', amount });
    return amount;
  }
}

import { Module } from '@nestjs/common';
import { InvoiceListener } from './invoice.listener';
import { Ledger } from './ledger';
import { RefundListener } from './refund.listener';

/** The billing service: listens to order events and keeps the ledger. */
@Module({ providers: [Ledger, InvoiceListener, RefundListener], exports: [Ledger] })
export class BillingModule {}

import { MessageContext, MMMQListener } from '@mmmq/consumer';
import { MmmqError } from '@mmmq/core';
import { Controller, Injectable } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { IsInt, IsString, Min } from 'class-validator';
import { MmmqContext } from '../../src';
import { rpcValidationPipe } from '../support/microservice-app';

/** The payload of every topic here: class-validator refuses a quantity below 1. */
export class Item {
  @IsString()
  id!: string;

  @IsInt()
  @Min(1)
  quantity!: number;
}

export const validItem = (id: string): Item => ({ id, quantity: 2 });
/** Refused for good by every listener: NACKed, retried, then dead-lettered. */
export const REFUSED = 'refused';

class RefusedError extends MmmqError {}

/** What one listener handled: how often each id, and on which attempts the refused one came. */
export class Handled {
  readonly times = new Map<string, number>();
  readonly attemptsOfRefused: number[] = [];

  take(item: Item, deliveryCount: number): void {
    if (item.id === REFUSED) {
      this.attemptsOfRefused.push(deliveryCount);
      throw new RefusedError(`cannot take ${item.id}`);
    }
    this.times.set(item.id, (this.times.get(item.id) ?? 0) + 1);
  }
}

/** A method listener (`@MMMQListener`) of MmmqConsumerModule. */
@Injectable()
export class Billing {
  readonly handled = new Handled();

  @MMMQListener('order.*', { consumerId: 'billing' })
  onOrder(order: Item, context: MessageContext): void {
    this.handled.take(order, context.deliveryCount);
  }
}

/** A class listener without any decorator: `listens()` and `handle()` make it one (consumer id `shipping`). */
@Injectable()
export class Shipping implements MMMQListener<Item> {
  readonly handled = new Handled();
  readonly contentType = Item;

  listens(): string {
    return 'parcel.*';
  }

  handle(parcel: Item, context: MessageContext): void {
    this.handled.take(parcel, context.deliveryCount);
  }
}

/** An `@EventPattern` handler of MmmqServer, connected to the same application, receiving in process. */
@Controller()
export class Invoicing {
  static readonly handled = new Handled();

  @EventPattern('invoice.*', { consumerId: 'invoicing' })
  onInvoice(@Payload(rpcValidationPipe()) invoice: Item, @Ctx() context: MmmqContext): void {
    Invoicing.handled.take(invoice, context.getDeliveryCount());
  }
}

/** Each listener's topic and consumer id, with what it handled. */
export const LISTENERS = [
  { topic: 'order.created', consumerId: 'billing' },
  { topic: 'parcel.packed', consumerId: 'shipping' },
  { topic: 'invoice.issued', consumerId: 'invoicing' },
] as const;

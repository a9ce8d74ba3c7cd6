// Compiled by listener-typing.spec.ts, never run: each `@ts-expect-error` marks a listener the compiler must refuse,
// and everything else must compile. A `@ts-expect-error` whose line stops being an error fails that spec.
import { Injectable } from '@nestjs/common';
import { Ctx, MessageContext, MMMQListener, Payload } from '../../../src';

class OrderCreated {
  orderId!: string;
  quantity!: number;
}

class OrderCancelled {
  orderId!: string;
  reason!: string;
}

interface OrderEvents {
  'order.created': OrderCreated;
  'order.cancelled': OrderCancelled;
}

const OrderListener = MMMQListener.for<OrderEvents>();

@Injectable()
export class TypedMethods {
  @OrderListener('order.created')
  created(order: OrderCreated, context: MessageContext): void {
    void [order, context];
  }

  @OrderListener('order.cancelled', { consumerId: 'billing.cancellations' })
  cancelled(@Payload() cancelled: OrderCancelled, @Ctx() context: MessageContext): void {
    void [cancelled, context];
  }

  @OrderListener('order.created')
  anything(content: unknown): void {
    void content;
  }

  // @ts-expect-error the topic carries OrderCreated, not OrderCancelled
  @OrderListener('order.created')
  wrongContent(order: OrderCancelled): void {
    void order;
  }

  // @ts-expect-error a wildcard is not a topic of the map
  @OrderListener('order.*')
  wildcard(order: OrderCreated): void {
    void order;
  }

  // @ts-expect-error a topic the map does not have
  @OrderListener('order.shipped')
  unknownTopic(order: OrderCreated): void {
    void order;
  }
}

@OrderListener('order.created')
export class TypedClass implements MMMQListener<OrderCreated> {
  handle(@Payload() order: OrderCreated): void {
    void order;
  }
}

// @ts-expect-error the class handles OrderCreated, but order.cancelled carries OrderCancelled
@OrderListener('order.cancelled')
export class MismatchedClass implements MMMQListener<OrderCreated> {
  handle(order: OrderCreated): void {
    void order;
  }
}

@MMMQListener('order.*', { consumerId: 'billing.orders' })
export class UntypedClass implements MMMQListener<OrderCreated> {
  listens(): string {
    return 'order.*';
  }

  handle(order: OrderCreated, context: MessageContext): void {
    void [order, context];
  }
}

// @ts-expect-error a class listener needs a handle() method
@MMMQListener('order.*')
export class NoHandle {
  onOrder(order: OrderCreated): void {
    void order;
  }
}

export class UntypedMethods {
  @MMMQListener('order.*')
  positional(order: OrderCreated, context: MessageContext): void {
    void [order, context];
  }

  @MMMQListener({ pattern: 'order.created', name: 'audit' })
  withOptionsObject(content: unknown): void {
    void content;
  }

  // @ts-expect-error the second parameter can only be the MessageContext
  @MMMQListener('order.created')
  secondNotContext(order: OrderCreated, extra: string): void {
    void [order, extra];
  }

  // @ts-expect-error a listener receives the content and the context, nothing more
  @MMMQListener('order.created')
  threeParameters(order: OrderCreated, context: MessageContext, extra: string): void {
    void [order, context, extra];
  }
}

// @ts-expect-error the event map goes to MMMQListener.for<E>(), where the topic can be inferred
MMMQListener<OrderEvents>('order.created');

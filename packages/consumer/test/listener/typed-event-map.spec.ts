import { InMemoryBroker, MmmqTestingModule } from '@mmmq/core/testing';
import { Injectable } from '@nestjs/common';
import { MessageContext, MmmqConsumerModule, MMMQListener } from '../../src';
import { initConsumer } from '../support/consumer-context';
import { OrderCreated, validOrder } from '../support/order-created.dto';

class OrderCancelled {
  orderId!: string;
  reason!: string;
}

class Unrelated {
  flag!: boolean;
}

/** The event map a producer and its listeners share. */
interface OrderEvents {
  'order.created': OrderCreated;
  'order.cancelled': OrderCancelled;
}

@Injectable()
class TypedListener {
  readonly received: unknown[] = [];

  @MMMQListener<OrderEvents>('order.created')
  onCreated(order: OrderCreated): void {
    this.received.push(order);
  }

  @MMMQListener<OrderEvents>({ pattern: 'order.cancelled', name: 'cancellations' })
  onCancelled(cancelled: OrderCancelled, context: MessageContext): void {
    this.received.push([cancelled, context.topic]);
  }
}

// Never instantiated: these declarations only exist for the compiler (`tsc -p tsconfig.json`) to refuse.
export class RefusedByTheCompiler {
  // @ts-expect-error a wildcard is not a topic of the map
  @MMMQListener<OrderEvents>('order.*')
  wildcard(order: OrderCreated): void {
    void order;
  }

  // @ts-expect-error a topic the map does not have
  @MMMQListener<OrderEvents>('order.shipped')
  unknownTopic(order: OrderCreated): void {
    void order;
  }

  // @ts-expect-error content of a type the map does not carry
  @MMMQListener<OrderEvents>('order.created')
  wrongContent(content: Unrelated): void {
    void content;
  }

  // @ts-expect-error the second parameter can only be the MessageContext
  @MMMQListener('order.created')
  secondNotContext(order: OrderCreated, extra: string): void {
    void [order, extra];
  }
}

describe('@MMMQListener with an event map', () => {
  it('receives the typed topics like any listener', async () => {
    const { app } = await initConsumer({
      imports: [MmmqTestingModule.forRoot(), MmmqConsumerModule.forRoot({ app: 'billing' })],
      providers: [TypedListener],
    });
    const broker = app.get(InMemoryBroker);
    broker.publish({ topic: 'order.created', content: validOrder('o-1') });
    broker.publish({ topic: 'order.cancelled', content: { orderId: 'o-1', reason: 'duplicate' } });
    await broker.drain();

    const [created, cancelled] = app.get(TypedListener).received;
    expect(created).toBeInstanceOf(OrderCreated);
    expect(cancelled).toEqual([expect.any(OrderCancelled), 'order.cancelled']);
    await app.close();
  });
});

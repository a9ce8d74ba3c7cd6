import { InMemoryBroker, MmmqTestingModule } from '@mmmq/core/testing';
import { Injectable } from '@nestjs/common';
import { MessageContext, MmmqConsumerModule, MMMQListener } from '../../src';
import { initConsumer } from '../support/consumer-context';
import { OrderCreated, validOrder } from '../support/order-created.dto';

class OrderCancelled {
  orderId!: string;
  reason!: string;
}

/** The event map a producer and its listeners share. */
interface OrderEvents {
  'order.created': OrderCreated;
  'order.cancelled': OrderCancelled;
}

/** The typed decorator factory: each listener's topic decides its content type (listener-typing.cases.ts). */
const OrderListener = MMMQListener.for<OrderEvents>();

@Injectable()
class TypedListener {
  readonly received: unknown[] = [];

  @OrderListener('order.created')
  onCreated(order: OrderCreated): void {
    this.received.push(order);
  }

  @OrderListener('order.cancelled', { name: 'cancellations' })
  onCancelled(cancelled: OrderCancelled, context: MessageContext): void {
    this.received.push([cancelled, context.topic]);
  }
}

describe('MMMQListener.for<EventMap>()', () => {
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

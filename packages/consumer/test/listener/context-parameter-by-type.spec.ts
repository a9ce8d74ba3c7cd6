import { InMemoryBroker, MmmqTestingModule } from '@mmmq/core/testing';
import { INestApplication, Injectable } from '@nestjs/common';
import { MessageContext, MMMQListener, MmmqConsumerModule, Payload } from '../../src';
import { initConsumer } from '../support/consumer-context';
import { OrderCreated, validOrder } from '../support/order-created.dto';

type Received = { order: unknown; context: unknown };

/** As docs/consumer.md shows it: the content through @Payload(), the context by its declared type alone. */
@Injectable()
class RefundListener implements MMMQListener<OrderCreated> {
  readonly received: Received[] = [];

  listens(): string {
    return 'order.created';
  }

  handle(@Payload() order: OrderCreated, context: MessageContext): void {
    this.received.push({ order, context });
  }
}

@Injectable()
class OrderMethods {
  readonly received: Received[] = [];
  readonly receivedProperty: Received[] = [];

  @MMMQListener('order.created')
  onCreated(@Payload() order: OrderCreated, context: MessageContext): void {
    this.received.push({ order, context });
  }

  @MMMQListener('order.created')
  onOrderId(@Payload('orderId') orderId: string, context: MessageContext): void {
    this.receivedProperty.push({ order: orderId, context });
  }
}

describe('a parameter declared MessageContext receives the context without @Ctx()', () => {
  let app: INestApplication;
  let broker: InMemoryBroker;

  beforeAll(async () => {
    ({ app } = await initConsumer({
      imports: [MmmqTestingModule.forRoot(), MmmqConsumerModule.forRoot({ app: 'billing' })],
      providers: [RefundListener, OrderMethods],
    }));
    broker = app.get(InMemoryBroker);
    broker.publish({ topic: 'order.created', content: validOrder('o-1') });
    await broker.drain();
  });
  afterAll(() => app.close());

  it('on a class listener next to @Payload()', () => {
    const [{ order, context }] = app.get(RefundListener).received;
    expect(order).toBeInstanceOf(OrderCreated);
    expect(context).toBeInstanceOf(MessageContext);
    expect(context).toMatchObject({ consumerId: 'billing.refund-listener', topic: 'order.created' });
  });

  it('on a method listener next to @Payload()', () => {
    const [{ order, context }] = app.get(OrderMethods).received;
    expect(order).toBeInstanceOf(OrderCreated);
    expect(context).toMatchObject({ consumerId: 'billing.order-methods.on-created', topic: 'order.created' });
    expect(context).toBeInstanceOf(MessageContext);
  });

  it('next to @Payload() of one property', () => {
    const [{ order, context }] = app.get(OrderMethods).receivedProperty;
    expect(order).toBe('o-1');
    expect(context).toBeInstanceOf(MessageContext);
    expect(broker.deadLetters()).toEqual([]);
  });
});

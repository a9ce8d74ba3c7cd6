import { InMemoryBroker, MmmqTestingModule } from '@mmmq/core/testing';
import { INestApplication, Injectable } from '@nestjs/common';
import { MessageContext, MmmqConsumerModule, MMMQListener, NonRetriableError } from '../src';
import { initConsumer } from './support/consumer-context';
import { Gate } from './support/gate';
import { OrderCreated, validOrder } from './support/order-created.dto';
import { flushPromises } from './support/wait-for';

@Injectable()
class OrderListener {
  readonly handled: string[] = [];
  readonly gates = new Map<string, Gate>();

  @MMMQListener('order.*')
  async onOrder(order: OrderCreated, context: MessageContext): Promise<void> {
    if (order.orderId === 'broken') throw new Error('always fails');
    if (order.orderId === 'refused') throw new NonRetriableError('not ours');
    await this.gates.get(order.orderId)?.promise;
    this.handled.push(`${context.topic}:${order.orderId}`);
  }
}

@Injectable()
class InvoiceListener {
  @MMMQListener('payment.*')
  async onPayment(payment: { id: string; fail?: boolean }, context: MessageContext): Promise<void> {
    await context.transaction((tx) => {
      tx.produce('invoice.paid', { payment: payment.id });
      if (payment.fail) throw new Error('cannot invoice');
    });
  }
}

/** The way users unit-test listeners: MmmqTestingModule replaces the broker, the rules stay the same. */
describe('listeners with the in-memory broker', () => {
  let app: INestApplication;
  let broker: InMemoryBroker;
  let listener: OrderListener;

  beforeEach(async () => {
    ({ app } = await initConsumer({
      imports: [MmmqTestingModule.forRoot(), MmmqConsumerModule.forRoot({ app: 'billing' })],
      providers: [OrderListener],
    }));
    broker = app.get(InMemoryBroker);
    listener = app.get(OrderListener);
  });
  afterEach(() => app.close());

  it('runs context.transaction(): its outputs are published when it commits, and nothing when the handler throws', async () => {
    const { app: invoicing } = await initConsumer({
      imports: [MmmqTestingModule.forRoot(), MmmqConsumerModule.forRoot({ app: 'invoicing' })],
      providers: [InvoiceListener],
    });
    try {
      const memory = invoicing.get(InMemoryBroker);
      memory.publish({ topic: 'payment.captured', content: { id: 'p-1' } });
      memory.publish({ topic: 'payment.captured', content: { id: 'p-2', fail: true } });
      await memory.drain();
      expect(memory.published('invoice.paid').map(({ content }) => content)).toEqual([{ payment: 'p-1' }]);
      expect(memory.deadLetters().map(({ content }) => content)).toEqual([{ id: 'p-2', fail: true }]);
    } finally {
      await invoicing.close();
    }
  });

  it('validates content and dead-letters what is invalid, refused or keeps failing, as the broker would', async () => {
    broker.publish({ topic: 'order.created', content: validOrder('o-1') });
    broker.publish({ topic: 'order.created', content: { orderId: 'o-2' } });
    broker.publish({ topic: 'order.created', content: validOrder('refused') });
    broker.publish({ topic: 'order.created', content: validOrder('broken') });
    await broker.drain();

    expect(listener.handled).toEqual(['order.created:o-1']);
    expect(broker.deadLetters('billing.order-listener.on-order').map(({ reason, attempts }) => ({ reason, attempts }))).toEqual([
      { reason: 'REJECTED', attempts: 1 },
      { reason: 'REJECTED', attempts: 1 },
      { reason: 'NACK', attempts: 4 },
    ]);
  });

  it('handles a listener’s messages one after another, even across topics', async () => {
    listener.gates.set('o-1', new Gate());
    broker.publish({ topic: 'order.created', content: validOrder('o-1') });
    broker.publish({ topic: 'order.cancelled', content: validOrder('o-2') });
    const drained = broker.drain();
    await flushPromises();
    expect(listener.handled).toEqual([]);

    listener.gates.get('o-1')!.open();
    await drained;
    expect(listener.handled).toEqual(['order.created:o-1', 'order.cancelled:o-2']);
  });
});

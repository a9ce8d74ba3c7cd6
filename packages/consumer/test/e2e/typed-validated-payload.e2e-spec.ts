import { Injectable } from '@nestjs/common';
import { MessageContext, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import type { ConsumerApp } from '../support/consumer-app';
import { OrderCreated, validOrder } from '../support/order-created.dto';
import { startRegisteredConsumer } from '../support/registered-consumer';
import { waitFor } from '../support/wait-for';

@Injectable()
class BillingListener {
  readonly received: Array<{ order: OrderCreated; deliveryCount: number }> = [];

  @MMMQListener('order.*')
  onOrder(order: OrderCreated, context: MessageContext): void {
    this.received.push({ order, deliveryCount: context.deliveryCount });
  }
}

const CONSUMER_ID = 'billing.billing-listener.on-order';

describe('typed and validated payloads over HTTP', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp;

  beforeAll(async () => {
    broker = await startBroker();
    consumer = await startRegisteredConsumer(broker, [BillingListener]);
  });
  afterAll(async () => {
    await consumer?.close();
    await broker?.close();
  });

  it('hands valid content to the handler as a class instance, and dead-letters invalid content after one attempt', async () => {
    await broker.publish('order.created', validOrder('o-1'));
    await broker.publish('order.created', { orderId: 'o-2', quantity: 0, customer: { name: 7 } });
    await broker.publish('order.created', validOrder('o-3'));
    const listener = consumer.app.get(BillingListener);
    await waitFor(() => listener.received.length === 2, 'the two valid orders');
    await broker.caughtUp(CONSUMER_ID, 'order.created');

    expect(listener.received.map(({ order }) => order.orderId)).toEqual(['o-1', 'o-3']);
    expect(listener.received.every(({ order }) => order instanceof OrderCreated)).toBe(true);
    expect(listener.received[0].order.summary).toBe('2 × o-1 for Ada');

    const deadLetters = await broker.deadLetters(CONSUMER_ID);
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]).toMatchObject({
      content: { orderId: 'o-2', quantity: 0 },
      headers: { 'mmmq-dlq-reason': 'REJECTED', 'mmmq-dlq-attempts': 1, 'mmmq-dlq-original-topic': 'order.created' },
    });
    const reason: string = deadLetters[0].headers['mmmq-dlq-last-error'];
    expect(reason).toContain('content is not a valid OrderCreated');
    expect(reason).toContain('quantity: quantity must not be less than 1');
    expect(reason).toContain('customer.name: name must be a string');
  });
});

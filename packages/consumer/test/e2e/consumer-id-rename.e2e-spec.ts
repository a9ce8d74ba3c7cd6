import { Injectable, Type } from '@nestjs/common';
import { MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { startRegisteredConsumer } from '../support/registered-consumer';
import { waitFor } from '../support/wait-for';

const received: string[] = [];

/** The same listener before and after its method is renamed, with or without a consumerId. */
function orderListener(method: 'onOrder' | 'handleOrder', consumerId?: string): Type<unknown> {
  @Injectable()
  class OrderListener {}
  const handler = (content: { n: string }) => void received.push(content.n);
  const descriptor = { value: handler, writable: true, configurable: true };
  Object.defineProperty(OrderListener.prototype, method, descriptor);
  MMMQListener('order.*', consumerId === undefined ? {} : { consumerId })(OrderListener.prototype, method, descriptor);
  return OrderListener;
}

describe('consumer ids across a method rename', () => {
  let broker: BrokerApp;

  beforeEach(async () => {
    received.length = 0;
    broker = await startBroker();
  });
  afterEach(() => broker.close());

  async function runOnce(listener: Type<unknown>, expected: string[]): Promise<void> {
    const consumer = await startRegisteredConsumer(broker, [listener]);
    await waitFor(() => received.length === expected.length, `messages ${expected.join(', ')}`);
    await consumer.close();
  }

  it('keeps a named listener on its dispatcher, so the renamed method continues where the old one stopped', async () => {
    await broker.publish('order.created', { n: '1' });
    await runOnce(orderListener('onOrder', 'billing.orders'), ['1']);
    await broker.publish('order.created', { n: '2' });
    await runOnce(orderListener('handleOrder', 'billing.orders'), ['1', '2']);

    expect(received).toEqual(['1', '2']);
    const { body } = await broker.request('GET', '/mmmq/dispatchers');
    const ids = (Array.isArray(body) ? body : body.dispatchers).map((dispatcher: { consumerId: string }) => dispatcher.consumerId);
    expect(ids).toEqual(['billing.orders']);
  });

  it('gives an unnamed listener a new consumer id when its method is renamed: a new dispatcher that starts from the beginning', async () => {
    await broker.publish('order.created', { n: '1' });
    await runOnce(orderListener('onOrder'), ['1']);
    await broker.publish('order.created', { n: '2' });
    await runOnce(orderListener('handleOrder'), ['1', '1', '2']);

    expect(received).toEqual(['1', '1', '2']);
    const { body } = await broker.request('GET', '/mmmq/dispatchers');
    const ids = (Array.isArray(body) ? body : body.dispatchers).map((dispatcher: { consumerId: string }) => dispatcher.consumerId);
    expect(ids.sort()).toEqual(['billing.order-listener.handle-order', 'billing.order-listener.on-order']);
    // The old dispatcher keeps its backlog until it is deleted.
    expect((await broker.subscription('billing.order-listener.on-order', 'order.created')).lag).toBe(1);
  });
});

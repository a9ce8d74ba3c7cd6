import { Injectable } from '@nestjs/common';
import { MessageContext, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import type { ConsumerApp } from '../support/consumer-app';
import { Gate } from '../support/gate';
import { startRegisteredConsumer } from '../support/registered-consumer';
import { flushPromises, waitFor } from '../support/wait-for';

// Shared by the application and its restarted successor, which have separate listener instances.
const started: string[] = [];
const finished: string[] = [];
let gate: Gate | undefined;

@Injectable()
class ShippingListener {
  @MMMQListener('order.*')
  async onOrder(content: { name: string }, context: MessageContext): Promise<void> {
    started.push(`${context.topic}:${content.name}`);
    await gate?.promise;
    finished.push(`${context.topic}:${content.name}`);
  }
}

const CONSUMER_ID = 'billing.shipping-listener.on-order';

describe('graceful shutdown with a handler in flight', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp;

  beforeAll(async () => {
    broker = await startBroker();
    consumer = await startRegisteredConsumer(broker, [ShippingListener], { shutdownTimeoutMs: 60_000 });
  });
  afterAll(async () => {
    gate?.open();
    await consumer?.close();
    await broker?.close();
  });

  it('refuses new deliveries with 503, finishes the running handler, acknowledges it, and loses nothing', async () => {
    gate = new Gate();
    await broker.publish('order.created', { name: 'first' });
    await waitFor(() => started.includes('order.created:first'), 'the handler to start');

    let closed = false;
    const closing = consumer.close().then(() => (closed = true));
    await broker.publish('order.cancelled', { name: 'during-shutdown' });
    await waitFor(
      async () => (await broker.subscription(CONSUMER_ID, 'order.cancelled'))?.stats.lastError?.includes('HTTP 503') ?? false,
      'a 503 for the delivery that arrived during shutdown',
    );
    await flushPromises();
    expect(closed).toBe(false);

    gate.open();
    await closing;
    expect(finished).toEqual(['order.created:first']);
    await broker.caughtUp(CONSUMER_ID, 'order.created');

    consumer = await startRegisteredConsumer(broker, [ShippingListener], {}, consumer.port);
    await waitFor(() => finished.includes('order.cancelled:during-shutdown'), 'the refused delivery after the restart');
    await broker.caughtUp(CONSUMER_ID, 'order.cancelled');
    expect(started).toEqual(['order.created:first', 'order.cancelled:during-shutdown']);
  });
});

import { Injectable } from '@nestjs/common';
import { MessageContext, MmmqConsumerHealthIndicator, MmmqConsumerModule, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { ConsumerApp, freePort, startConsumer } from '../support/consumer-app';
import { initConsumer } from '../support/consumer-context';
import { waitFor } from '../support/wait-for';
import type { INestApplication } from '@nestjs/common';

@Injectable()
class OrderListener {
  readonly received: Array<{ content: unknown; deliveryCount: number }> = [];

  @MMMQListener('order.*')
  onOrder(content: unknown, context: MessageContext): void {
    this.received.push({ content, deliveryCount: context.deliveryCount });
  }
}

describe('a consumer application started before its broker', () => {
  let broker: BrokerApp | undefined;
  let consumer: ConsumerApp | undefined;
  let puller: INestApplication | undefined;

  afterEach(async () => {
    await consumer?.close();
    await puller?.close();
    await broker?.close();
    consumer = puller = broker = undefined;
  });

  it('push: starts and reports down; once the broker starts it registers, reports up, and receives', async () => {
    const brokerPort = await freePort();
    const port = await freePort();
    const module = MmmqConsumerModule.forRoot({
      app: 'billing',
      broker: `http://127.0.0.1:${brokerPort}`,
      advertisedUrl: `http://127.0.0.1:${port}`,
      registration: { backoffMs: 50 },
    });
    consumer = await startConsumer({ imports: [module], providers: [OrderListener] }, { port });
    const health = consumer.app.get(MmmqConsumerHealthIndicator);
    await waitFor(() => health.check().pending[0]?.lastError !== undefined, 'a failed registration');
    expect(health.check().status).toBe('down');

    broker = await startBroker({ port: brokerPort });
    await waitFor(() => health.check().status === 'up', 'the dispatcher to be registered');
    await broker.publish('order.created', { n: 1 });
    await waitFor(() => consumer!.app.get(OrderListener).received.length === 1, 'the delivery');
    expect(consumer.app.get(OrderListener).received).toEqual([{ content: { n: 1 }, deliveryCount: 1 }]);
  });

  it('pull: starts and reports down; once the broker starts it registers, reports up, and fetches', async () => {
    const brokerPort = await freePort();
    const module = MmmqConsumerModule.forRoot({
      app: 'billing',
      broker: `http://127.0.0.1:${brokerPort}`,
      delivery: 'pull',
      pull: { waitMs: 500 },
      registration: { backoffMs: 50 },
    });
    ({ app: puller } = await initConsumer({ imports: [module], providers: [OrderListener] }));
    const health = puller.get(MmmqConsumerHealthIndicator);
    await waitFor(() => health.check().pending[0]?.lastError !== undefined, 'a failed registration');
    expect(health.check().status).toBe('down');

    broker = await startBroker({ port: brokerPort });
    await waitFor(() => health.check().status === 'up', 'the dispatcher to be registered');
    await broker.publish('order.created', { n: 1 });
    await waitFor(() => puller!.get(OrderListener).received.length === 1, 'the fetched message');
    expect(puller.get(OrderListener).received).toEqual([{ content: { n: 1 }, deliveryCount: 1 }]);
  });
});

import { MmmqConsumerHealth, MmmqConsumerHealthIndicator, MmmqConsumerModule, MMMQListener } from '@mmmq/consumer';
import { waitFor } from '@mmmq/test-support';
import { INestApplicationContext, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { RabbitMqTransport } from '../src';
import { listener, message, proxiedResources, RABBITMQ_URL, RecordingHandler, TestResources } from './support/rabbitmq-test-transport';
import { TcpProxy } from './support/tcp-proxy';

@Injectable()
class OrderListener {
  readonly received: string[] = [];

  @MMMQListener('order.created')
  async onCreated(order: { id: string }): Promise<void> {
    this.received.push(order.id);
  }
}

describe('the consumer health on RabbitMQ when the connection drops', () => {
  let proxy: TcpProxy;
  let resources: TestResources;
  let app: INestApplicationContext | undefined;

  beforeEach(async () => {
    ({ proxy, resources } = await proxiedResources());
  });

  afterEach(async () => {
    // A failed test may leave RabbitMQ "down": the clean-up needs it.
    proxy.refuse = false;
    await app?.close();
    await resources.dispose();
    await proxy.stop();
  });

  it('is down naming the transport, since when and the last error while the subscriber reconnects, and up again once it resubscribed', async () => {
    @Module({
      imports: [MmmqConsumerModule.forRoot({ app: 'billing', transport: resources.transport })],
      providers: [OrderListener],
    })
    class BillingModule {}
    app = await NestFactory.createApplicationContext(BillingModule, { abortOnError: false });
    await app.init();
    const health = app.get(MmmqConsumerHealthIndicator);
    const orders = app.get(OrderListener);
    let last: MmmqConsumerHealth = health.check();
    const describeLast = () => `; last health: ${JSON.stringify(last)}`;
    expect(last).toMatchObject({ status: 'up', transport: { name: 'rabbitmq', receiving: true } });

    // RabbitMQ "down" for this consumer: its connection is cut, and reconnecting is refused until the test says.
    proxy.refuse = true;
    const cutAt = Date.now();
    proxy.cut();
    await waitFor(() => (last = health.check()).status === 'down', { message: () => `health down after the cut${describeLast()}` });
    expect(last.transport).toMatchObject({ name: 'rabbitmq', receiving: false });
    expect(Date.parse(last.transport!.since)).toBeGreaterThanOrEqual(cutAt);
    expect(last.message).toMatch(
      new RegExp(
        `^the rabbitmq transport has not been receiving since ${last.transport!.since} \\(\\d+ ms\\): disconnected, reconnecting: .+`,
      ),
    );
    // The reason follows the reconnection attempts: the last one was refused.
    await waitFor(() => proxy.refused >= 2, { message: () => `reconnection attempts while refused${describeLast()}` });
    expect(health.check().transport?.reason).toMatch(/^disconnected, reconnecting: /);

    // Published meanwhile, past the proxy: it waits in the consumer's quorum queue.
    const { exchange, queuePrefix } = resources.transport.options;
    const publisher = resources.keep(new RabbitMqTransport({ url: RABBITMQ_URL, exchange, queuePrefix }).createPublisher());
    await publisher.publish(message('order.created', { id: 'published-while-down' }));
    expect(health.check().status).toBe('down');
    expect(orders.received).toEqual([]);

    proxy.refuse = false;
    const restoredAt = Date.now();
    await waitFor(() => (last = health.check()).status === 'up', { message: () => `health up after the restore${describeLast()}` });
    expect(last.transport).toEqual({ name: 'rabbitmq', receiving: true, since: last.transport!.since });
    expect(Date.parse(last.transport!.since)).toBeGreaterThanOrEqual(restoredAt);
    await waitFor(() => orders.received.includes('published-while-down'), {
      message: () => `the message published while down to be delivered; received ${JSON.stringify(orders.received)}`,
    });
  });

  it('reports not receiving from the moment it stops receiving (shutdown)', async () => {
    const subscriber = resources.subscriber();
    await subscriber.subscribe(listener('stopping', 'x'), new RecordingHandler().handle);
    expect(subscriber.state?.()).toMatchObject({ receiving: true });
    const stoppedAt = Date.now();
    await subscriber.stopReceiving();
    const state = subscriber.state?.();
    expect(state).toMatchObject({ receiving: false, reason: 'stopped receiving (shutting down)' });
    expect(state!.since).toBeGreaterThanOrEqual(stoppedAt);
  });
});

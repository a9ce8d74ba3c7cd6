import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { MmmqConsumerModule, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { freePort } from '../support/consumer-app';
import { OrderCreated, validOrder } from '../support/order-created.dto';
import { waitFor } from '../support/wait-for';

@Injectable()
class FastifyListener {
  readonly orders: OrderCreated[] = [];

  @MMMQListener('order.*')
  onOrder(order: OrderCreated): void {
    this.orders.push(order);
  }
}

describe('a consumer application on @nestjs/platform-fastify', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(() => broker?.close());

  it("registers, receives batched pushes through fastify's JSON parser, and validates them", async () => {
    const port = await freePort();
    @Module({
      imports: [MmmqConsumerModule.forRoot({ app: 'billing', broker: broker.url, advertisedUrl: `http://127.0.0.1:${port}` })],
      providers: [FastifyListener],
    })
    class FastifyConsumerModule {}
    const app = await NestFactory.create(FastifyConsumerModule, new FastifyAdapter(), { logger: false });
    await app.listen(port, '127.0.0.1');
    try {
      await broker.publish('order.created', validOrder('f-1'));
      await broker.publish('order.created', { orderId: 'f-2', quantity: 0 });
      await broker.publish('order.created', validOrder('f-3'));
      const listener = app.get(FastifyListener);
      await waitFor(() => listener.orders.length === 2, 'the valid orders');
      expect(listener.orders.map((order) => order.orderId)).toEqual(['f-1', 'f-3']);
      expect(listener.orders.every((order) => order instanceof OrderCreated)).toBe(true);
      await waitFor(async () => (await broker.deadLetters('billing.fastify-listener.on-order')).length === 1, 'the dead letter');
    } finally {
      await app.close();
    }
  });
});

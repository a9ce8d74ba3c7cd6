import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { BrokerApp, FAST_BACKOFF, freePort, startBroker, waitFor } from '@mmmq/test-support';
import type { Server } from 'node:http';
import { MmmqContext, MmmqServer } from '../src';
import { rpcValidationPipe } from './support/microservice-app';
import { OrderCreatedDto } from './support/portable/order-created.dto';

const handled: Array<{ order: OrderCreatedDto; consumerId: string }> = [];
/** Holds the handler of order 'slow' until the test releases it. */
let releaseSlow: (() => void) | undefined;

@Controller()
class ShopController {
  @Get('health')
  health(): { ok: boolean } {
    return { ok: true };
  }

  @EventPattern('order.*')
  async placed(@Payload() order: OrderCreatedDto, @Ctx() context: MmmqContext): Promise<void> {
    if (order.orderId === 'slow') {
      await new Promise<void>((resolve) => (releaseSlow = resolve));
    }
    handled.push({ order, consumerId: context.getConsumerId() });
  }
}

@Module({ controllers: [ShopController] })
class ShopModule {}

const CONSUMER_ID = 'shop.order.any';

async function createApp(platform: 'express' | 'fastify'): Promise<INestApplication> {
  if (platform === 'express') return NestFactory.create(ShopModule, { abortOnError: false });
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return NestFactory.create(ShopModule, new FastifyAdapter(), { abortOnError: false });
}

describe.each(['express', 'fastify'] as const)('a hybrid %s application whose MmmqServer shares its HTTP server', (platform) => {
  let broker: BrokerApp;
  let app: INestApplication;
  let server: MmmqServer;
  let url: string;

  beforeAll(async () => {
    handled.length = 0;
    releaseSlow = undefined;
    broker = await startBroker({ delivery: { ...FAST_BACKOFF, maxNackRetries: 2 } });
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    app = await createApp(platform);
    server = new MmmqServer({ app: 'shop', broker: broker.url, advertisedUrl: url, httpServer: app.getHttpServer() as Server });
    // Before connectMicroservice: Nest builds the microservice's handlers there (unless deferInitialization),
    // with the global enhancers the application has at that moment.
    app.useGlobalPipes(rpcValidationPipe());
    app.connectMicroservice({ strategy: server }, { inheritAppConfig: true });
    await app.startAllMicroservices();
    await app.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    releaseSlow?.();
    await app?.close();
    await broker?.close();
  });

  it('receives the broker’s pushes on the application’s own port, with no server of its own', async () => {
    await broker.publish('order.placed', { orderId: 'o-1', quantity: 1 });
    await waitFor(() => handled.some(({ order }) => order.orderId === 'o-1'), { message: 'order o-1 handled' });
    expect(server.unwrap()).toBe(app.getHttpServer());
    const dispatcher = await broker.request('GET', `/mmmq/dispatchers/${CONSUMER_ID}`);
    expect(dispatcher.status).toBe(200);
    expect(dispatcher.body.host).toEqual({ protocol: 'HTTP', address: '127.0.0.1', port: Number(new URL(url).port) });
    await broker.caughtUp(CONSUMER_ID, 'order.placed');
  });

  it('still answers the application’s own routes, and 404 on unknown ones', async () => {
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    expect((await fetch(`${url}/nope`)).status).toBe(404);
    // A GET on the push path is the application's, not a push.
    expect((await fetch(`${url}/mmmq/messages`)).status).toBe(404);
    // A push for a consumer id none of its handlers has (an MmmqConsumerModule's, say) is the application's too.
    const foreign = await fetch(`${url}/mmmq/messages`, { method: 'POST', headers: { 'mmmq-consumer-id': 'billing.other' }, body: '{}' });
    expect(foreign.status).toBe(404);
  });

  it('runs the application’s global pipes on the messages (inheritAppConfig)', async () => {
    await broker.publish('order.placed', { orderId: 'typed', quantity: 3 });
    await broker.publish('order.placed', { orderId: 42, quantity: 0 });
    await waitFor(async () => (await broker.deadLetters(CONSUMER_ID)).length === 1, { message: 'the invalid order dead-lettered' });
    await waitFor(() => handled.some(({ order }) => order.orderId === 'typed'), { message: 'the typed order handled' });
    const typed = handled.find(({ order }) => order.orderId === 'typed')!;
    expect(typed.order).toBeInstanceOf(OrderCreatedDto);
    expect(typed.consumerId).toBe(CONSUMER_ID);
    const [letter] = await broker.deadLetters(CONSUMER_ID);
    expect(letter.headers).toMatchObject({
      'mmmq-dlq-attempts': 1,
      'mmmq-dlq-last-error': expect.stringMatching(/^Validation failed: orderId/),
    });
  });

  it('drains on app.close(): the running handler finishes and its message is acknowledged', async () => {
    await broker.publish('order.placed', { orderId: 'slow', quantity: 1 });
    await waitFor(() => releaseSlow !== undefined, { message: 'the slow handler to start' });
    let closed = false;
    const closing = app.close().then(() => (closed = true));
    await waitFor(async () => (await broker.subscription(CONSUMER_ID, 'order.placed'))?.leased === 1, { message: 'the slow order leased' });
    expect(closed).toBe(false);
    releaseSlow!();
    await closing;
    expect(handled.map(({ order }) => order.orderId)).toContain('slow');
    const subscription = await broker.subscription(CONSUMER_ID, 'order.placed');
    expect(subscription).toMatchObject({ lag: 0, leased: 0 });
  });
});

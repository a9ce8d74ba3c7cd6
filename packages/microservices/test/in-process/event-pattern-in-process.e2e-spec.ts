import { MmmqBrokerModule } from '@mmmq/broker';
import { DeadLetterHeaders } from '@mmmq/core';
import { MmmqProducerModule, Producer } from '@mmmq/producer';
import { Gate, makeTempDir, removeTempDir, waitFor } from '@mmmq/test-support';
import { Controller, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { MmmqContext, MmmqNonRetriableException, MmmqServer } from '../../src';

interface Order {
  orderId: string;
}

/** What the handler did, shared with the test (a controller instance per application). */
const seen = { handled: new Map<string, number>(), attemptsOfRefused: [] as number[], slow: new Gate(), slowStarted: false };

@Controller()
class OrdersController {
  @EventPattern('order.*', { consumerId: 'orders' })
  async onOrder(@Payload() order: Order, @Ctx() context: MmmqContext): Promise<void> {
    if (order.orderId === 'refused') {
      seen.attemptsOfRefused.push(context.getDeliveryCount());
      throw new Error('cannot take this order');
    }
    if (order.orderId === 'invalid') throw new MmmqNonRetriableException('not an order');
    if (order.orderId === 'slow') {
      seen.slowStarted = true;
      await seen.slow.promise;
    }
    seen.handled.set(order.orderId, (seen.handled.get(order.orderId) ?? 0) + 1);
  }
}

async function deadLetters(
  app: INestApplication,
  consumerId: string,
): Promise<Array<{ content: Order; headers: Record<string, unknown> }>> {
  const response = await fetch(`${await app.getUrl()}/mmmq/dead-letters/${consumerId}`.replace('[::1]', '127.0.0.1'));
  expect(response.status).toBe(200);
  return ((await response.json()) as { deadLetters: Array<{ content: Order; headers: Record<string, unknown> }> }).deadLetters;
}

describe('MmmqServer in the broker’s own application: @EventPattern handlers receive in process', () => {
  let rootDir: string;
  let app: INestApplication | undefined;

  beforeEach(async () => {
    rootDir = await makeTempDir();
    seen.handled.clear();
    seen.attemptsOfRefused.length = 0;
    seen.slow = new Gate();
    seen.slowStarted = false;
  });
  afterEach(async () => {
    seen.slow.open();
    await app?.close();
    app = undefined;
    await removeTempDir(rootDir);
  });

  /** A hybrid application; `initFirst` bootstraps it before the microservice listens, else after (the docs' order). */
  async function start(initFirst = false): Promise<INestApplication> {
    @Module({
      imports: [MmmqBrokerModule.forRoot({ persistence: { rootDir } }), MmmqProducerModule.forRoot()],
      controllers: [OrdersController],
    })
    class AppModule {}
    const created = await NestFactory.create(AppModule, { abortOnError: false });
    created.connectMicroservice({ strategy: new MmmqServer({ app: 'shop' }) });
    if (initFirst) await created.init();
    await created.startAllMicroservices();
    await created.listen(0, '127.0.0.1');
    return created;
  }

  it.each([false, true])(
    'handles each message once, retries a NACKed one then dead-letters it, dead-letters a refused one (init first: %p)',
    async (initFirst) => {
      app = await start(initFirst);
      const producer = app.get(Producer);
      await Promise.all(Array.from({ length: 200 }, (_, i) => producer.produce('order.created', { orderId: `o-${i}` })));
      await producer.produce('order.created', { orderId: 'refused' });
      await producer.produce('order.created', { orderId: 'invalid' });

      await waitFor(() => seen.handled.size === 200, { message: () => `200 orders handled, got ${seen.handled.size}` });
      expect([...seen.handled.values()].every((times) => times === 1)).toBe(true);
      let letters: Awaited<ReturnType<typeof deadLetters>> = [];
      await waitFor(
        async () => {
          letters = await deadLetters(app!, 'orders');
          return letters.length === 2;
        },
        { message: () => `two dead letters, got ${JSON.stringify(letters)}` },
      );
      const reasons = Object.fromEntries(letters.map((letter) => [letter.content.orderId, letter.headers[DeadLetterHeaders.REASON]]));
      expect(reasons).toEqual({ refused: 'NACK', invalid: 'REJECTED' });
      expect(seen.attemptsOfRefused).toEqual([1, 2, 3, 4]);
    },
  );

  it('drains on shutdown: a handler in flight finishes and its message is acknowledged before the broker stops', async () => {
    app = await start();
    await app.get(Producer).produce('order.created', { orderId: 'slow' });
    await waitFor(() => seen.slowStarted, { message: 'the slow handler started' });
    const closed = app.close();
    app = undefined;
    seen.slow.open();
    await closed;
    expect(seen.handled.get('slow')).toBe(1);

    seen.handled.clear();
    app = await start();
    await app.get(Producer).produce('order.created', { orderId: 'after-restart' });
    await waitFor(() => seen.handled.has('after-restart'), { message: 'the order published after the restart handled' });
    expect(seen.handled.has('slow')).toBe(false);
  });
});

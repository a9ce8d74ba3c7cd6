import { DeadLetterHeaders, MmmqError } from '@mmmq/core';
import { MmmqBrokerModule } from '@mmmq/broker';
import { MmmqProducerModule, Producer } from '@mmmq/producer';
import { Injectable, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { makeTempDir, removeTempDir, waitFor } from '@mmmq/test-support';
import { MessageContext, MmmqConsumerModule, MMMQListener } from '../../src';
import { OrderCreated, validOrder } from '../support/order-created.dto';

const ORDERS = 2_000;

/** Refuses one order for good: NACKed every time, so it is retried, then dead-lettered. */
class RefusedOrderError extends MmmqError {}

@Injectable()
class Billing {
  readonly handled = new Map<string, number>();
  readonly attemptsOfRefused: number[] = [];

  @MMMQListener('order.*', { consumerId: 'billing' })
  onOrder(order: OrderCreated, context: MessageContext): void {
    if (order.orderId === 'refused') {
      this.attemptsOfRefused.push(context.deliveryCount);
      throw new RefusedOrderError('cannot bill this order');
    }
    this.handled.set(order.orderId, (this.handled.get(order.orderId) ?? 0) + 1);
  }
}

@Injectable()
class Orders {
  constructor(readonly producer: Producer) {}

  place(orderId: string) {
    return this.producer.produce('order.created', validOrder(orderId));
  }
}

async function deadLetters(
  app: INestApplication,
  consumerId: string,
): Promise<Array<{ content: { orderId: string }; headers: Record<string, unknown> }>> {
  const response = await fetch(`${await app.getUrl()}/mmmq/dead-letters/${consumerId}`.replace('[::1]', '127.0.0.1'));
  expect(response.status).toBe(200);
  return ((await response.json()) as { deadLetters: Array<{ content: { orderId: string }; headers: Record<string, unknown> }> })
    .deadLetters;
}

describe.each([
  ['express', () => undefined],
  ['fastify', () => new FastifyAdapter()],
])('broker, listener and producer in one %s application, created with defaults', (_platform, adapter) => {
  let rootDir: string;
  let app: INestApplication | undefined;

  beforeEach(async () => {
    rootDir = await makeTempDir();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await removeTempDir(rootDir);
  });

  async function start(): Promise<INestApplication> {
    @Module({
      imports: [MmmqBrokerModule.forRoot({ persistence: { rootDir } }), MmmqConsumerModule.forRoot(), MmmqProducerModule.forRoot()],
      providers: [Billing, Orders],
    })
    class AppModule {}
    const platform = adapter();
    const created =
      platform === undefined
        ? await NestFactory.create(AppModule, { abortOnError: false })
        : await NestFactory.create(AppModule, platform, { abortOnError: false });
    await created.listen(0, '127.0.0.1');
    return created;
  }

  it('delivers every message once, in process; retries and dead-letters the refused and the invalid', async () => {
    app = await start();
    const orders = app.get(Orders);
    const billing = app.get(Billing);
    const placed = await Promise.all(Array.from({ length: ORDERS }, (_, i) => orders.place(`o-${i}`)));
    expect(placed.every((published) => typeof published.offset === 'number')).toBe(true);
    await orders.place('refused');
    await orders.producer.produce('order.created', { orderId: 'invalid', quantity: 0 });

    await waitFor(() => billing.handled.size === ORDERS, { message: () => `${ORDERS} orders handled, got ${billing.handled.size}` });
    expect([...billing.handled.values()].every((times) => times === 1)).toBe(true);
    let letters: Awaited<ReturnType<typeof deadLetters>> = [];
    await waitFor(
      async () => {
        letters = await deadLetters(app!, 'billing');
        return letters.length === 2;
      },
      { message: () => `two dead letters, got ${JSON.stringify(letters)}` },
    );
    const reasons = Object.fromEntries(letters.map((letter) => [letter.content.orderId, letter.headers[DeadLetterHeaders.REASON]]));
    expect(reasons).toEqual({ refused: 'NACK', invalid: 'REJECTED' });
    expect(billing.attemptsOfRefused).toEqual([1, 2, 3, 4]);
  });

  it('takes publishes over HTTP beside the in-process producer: the host body parser does not read them', async () => {
    app = await start();
    const response = await fetch(`${await app.getUrl()}/mmmq/messages`.replace('[::1]', '127.0.0.1'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ topic: 'order.created', content: validOrder('over-http') }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ acknowledgement: 'ACK', topic: 'order.created', offset: 0 });
    await waitFor(() => app!.get(Billing).handled.has('over-http'), { message: 'the order published over HTTP handled' });
  });
});

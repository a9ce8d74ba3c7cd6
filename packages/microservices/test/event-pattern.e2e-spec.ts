import { CallHandler, Controller, ExecutionContext, INestMicroservice, Injectable, NestInterceptor } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { Ctx, EventPattern, Payload, RpcException } from '@nestjs/microservices';
import { BrokerApp, FAST_BACKOFF, freePort, startBroker, waitFor } from '@mmmq/test-support';
import { Observable, tap } from 'rxjs';
import { MmmqContext, MmmqNonRetriableException } from '../src';
import { OrderCreatedDto } from './support/portable/order-created.dto';
import { startMicroservice } from './support/microservice-app';

const seen: Array<{
  order: OrderCreatedDto;
  id: string;
  topic: string;
  offset: number;
  deliveryCount: number;
  redelivered: boolean;
  tenant: unknown;
}> = [];
const intercepted: Array<{ type: string; pattern: string; data: unknown }> = [];
const failures: Array<{ orderId: string; deliveryCount: number }> = [];

@Controller()
class OrdersController {
  @EventPattern('order.*')
  placed(@Payload() order: OrderCreatedDto, @Ctx() context: MmmqContext): void {
    seen.push({
      order,
      id: context.getId(),
      topic: context.getTopic(),
      offset: context.getOffset(),
      deliveryCount: context.getDeliveryCount(),
      redelivered: context.isRedelivered(),
      tenant: context.getHeaders().tenant,
    });
    if (order.orderId === 'flaky') {
      failures.push({ orderId: order.orderId, deliveryCount: context.getDeliveryCount() });
      throw new RpcException('payment gateway timed out');
    }
    if (order.orderId === 'unknown-sku') throw new MmmqNonRetriableException('sku 42 does not exist');
  }
}

/** Registered as an APP_INTERCEPTOR provider, as in an application: it sees every message. */
@Injectable()
class CountingInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const rpc = context.switchToRpc();
    const entry = { type: context.getType(), pattern: rpc.getContext<MmmqContext>().getPattern(), data: rpc.getData() };
    return next.handle().pipe(tap({ finalize: () => intercepted.push(entry) }));
  }
}

const CONSUMER_ID = 'shop.order.any';

describe('@EventPattern handlers on MmmqServer (push, standalone microservice)', () => {
  let broker: BrokerApp;
  let microservice: INestMicroservice;

  beforeAll(async () => {
    broker = await startBroker({ delivery: { ...FAST_BACKOFF, maxNackRetries: 2 } });
    const port = await freePort();
    const options = { app: 'shop', broker: broker.url, advertisedUrl: `http://127.0.0.1:${port}`, host: '127.0.0.1' };
    ({ app: microservice } = await startMicroservice([OrdersController], options, undefined, {
      providers: [{ provide: APP_INTERCEPTOR, useClass: CountingInterceptor }],
    }));
  });
  afterAll(async () => {
    await microservice?.close();
    await broker?.close();
  });

  it('hands the handler a typed, validated payload and an MmmqContext with the message metadata', async () => {
    const { id, offset } = await broker.publish('order.placed', { orderId: 'o-1', quantity: 2 });
    await waitFor(() => seen.some(({ order }) => order.orderId === 'o-1'), { message: 'order o-1 handled' });
    const entry = seen.find(({ order }) => order.orderId === 'o-1')!;
    expect(entry.order).toBeInstanceOf(OrderCreatedDto);
    expect(entry.order.summary).toBe('2 × o-1');
    expect(entry).toMatchObject({ id, topic: 'order.placed', offset, deliveryCount: 1, redelivered: false });
    await broker.caughtUp(CONSUMER_ID, 'order.placed');
    expect(await broker.deadLetters(CONSUMER_ID)).toEqual([]);
  });

  it('dead-letters a payload the global ValidationPipe rejects, at once and with the validation reason', async () => {
    await broker.publish('order.cancelled', { orderId: 7, quantity: 0 });
    await waitFor(async () => (await broker.deadLetters(CONSUMER_ID)).length === 1, { message: 'the invalid order dead-lettered' });
    const [deadLetter] = await broker.deadLetters(CONSUMER_ID);
    expect(deadLetter.content).toEqual({ orderId: 7, quantity: 0 });
    expect(deadLetter.headers['mmmq-dlq-attempts']).toBe(1);
    expect(deadLetter.headers['mmmq-dlq-last-error']).toBe(
      'Validation failed: orderId: orderId must be a string; quantity: quantity must not be less than 1',
    );
    expect(seen.some(({ order }) => (order.orderId as unknown) === 7)).toBe(false);
  });

  it('retries a handler that throws, then dead-letters the message after the broker’s attempts', async () => {
    await broker.publish('order.placed', { orderId: 'flaky', quantity: 1 });
    await waitFor(async () => (await broker.deadLetters(CONSUMER_ID)).some((letter) => letter.content.orderId === 'flaky'), {
      message: 'flaky dead-lettered',
    });
    expect(failures).toEqual([1, 2, 3].map((deliveryCount) => ({ orderId: 'flaky', deliveryCount })));
    const letter = (await broker.deadLetters(CONSUMER_ID)).find((candidate) => candidate.content.orderId === 'flaky');
    expect(letter.headers).toMatchObject({
      'mmmq-dlq-reason': 'NACK',
      'mmmq-dlq-attempts': 3,
      'mmmq-dlq-last-error': 'payment gateway timed out',
    });
  });

  it('dead-letters at once on MmmqNonRetriableException', async () => {
    await broker.publish('order.placed', { orderId: 'unknown-sku', quantity: 1 });
    await waitFor(async () => (await broker.deadLetters(CONSUMER_ID)).some((letter) => letter.content.orderId === 'unknown-sku'), {
      message: 'dead-lettered',
    });
    const letter = (await broker.deadLetters(CONSUMER_ID)).find((candidate) => candidate.content.orderId === 'unknown-sku');
    expect(letter.headers).toMatchObject({ 'mmmq-dlq-attempts': 1, 'mmmq-dlq-last-error': 'sku 42 does not exist' });
    expect(seen.filter(({ order }) => order.orderId === 'unknown-sku')).toHaveLength(1);
  });

  it('runs every message through the application’s interceptors, with the rpc context type', async () => {
    await broker.caughtUp(CONSUMER_ID, 'order.placed');
    await broker.caughtUp(CONSUMER_ID, 'order.cancelled');
    // The invalid order stops at the pipe, inside the interceptor: the interceptor saw it too.
    expect(intercepted.map(({ data }) => (data as { orderId: unknown }).orderId).sort()).toEqual(
      ['flaky', 'flaky', 'flaky', 'o-1', 'unknown-sku', 7].sort(),
    );
    expect(new Set(intercepted.map(({ type, pattern }) => `${type} ${pattern}`))).toEqual(new Set(['rpc order.*']));
  });
});

import {
  CallHandler,
  CanActivate,
  ExecutionContext,
  Injectable,
  INestApplication,
  NestInterceptor,
  UseInterceptors,
  ValidationPipe,
} from '@nestjs/common';
import { APP_GUARD, APP_PIPE } from '@nestjs/core';
import type { Observable } from 'rxjs';
import { Ctx, MessageContext, MMMQ_CONTEXT_TYPE, MMMQListener, Payload } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { OrderCreated, validOrder } from '../support/order-created.dto';
import { startPullingConsumer } from '../support/pulling-consumer';

/** An APP_GUARD provider: applies to every listener of the application. */
@Injectable()
class AcmeOnly implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToRpc().getContext<MessageContext>().headers.tenant === 'acme';
  }
}

@Injectable()
class Counting implements NestInterceptor {
  static readonly seen: string[] = [];
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    Counting.seen.push(`${context.getType()}:${context.switchToRpc().getData<OrderCreated>().orderId}`);
    return next.handle();
  }
}

@Injectable()
@UseInterceptors(Counting)
class StockListener {
  readonly received: Array<[OrderCreated, MessageContext]> = [];

  @MMMQListener({ pattern: 'stock.*', consumerId: 'billing.stock' })
  onChange(@Payload() order: OrderCreated, @Ctx() context: MessageContext): void {
    this.received.push([order, context]);
  }
}

describe('a pull listener runs through the same Nest pipes, guards and interceptors', () => {
  let broker: BrokerApp;
  let app: INestApplication;

  beforeAll(async () => {
    broker = await startBroker();
    const publish = (content: unknown, tenant: string) =>
      broker.request('POST', '/mmmq/messages', { topic: 'stock.low', content, headers: { tenant } });
    await publish(validOrder('o-1'), 'acme');
    await publish({ ...validOrder('o-2'), coupon: 'FREE' }, 'acme');
    await publish(validOrder('o-3'), 'other');
    ({ app } = await startPullingConsumer(broker, [
      StockListener,
      Counting,
      { provide: APP_GUARD, useClass: AcmeOnly },
      { provide: APP_PIPE, useValue: new ValidationPipe({ transform: true, forbidNonWhitelisted: true, whitelist: true }) },
    ]));
    await broker.caughtUp('billing.stock', 'stock.low');
  });
  afterAll(async () => {
    await app?.close();
    await broker?.close();
  });

  it('hands the valid message to the handler, validated and converted', () => {
    const received = app.get(StockListener).received;
    expect(received.map(([order]) => order.orderId)).toEqual(['o-1']);
    expect(received[0][0]).toBeInstanceOf(OrderCreated);
    expect(received[0][1]).toBeInstanceOf(MessageContext);
  });

  it('dead-letters what the APP_PIPE and the APP_GUARD refuse, with their reasons, after one attempt', async () => {
    const letters = await broker.deadLetters('billing.stock');
    expect(
      letters.map((letter) => [letter.content.orderId, letter.headers['mmmq-dlq-attempts'], letter.headers['mmmq-dlq-last-error']]),
    ).toEqual([
      ['o-2', 1, 'BadRequestException (400): property coupon should not exist'],
      ['o-3', 1, 'ForbiddenException (403): Forbidden resource'],
    ]);
  });

  it('runs the class interceptor on every message the guard let through', () => {
    expect(Counting.seen).toEqual([`${MMMQ_CONTEXT_TYPE}:o-1`, `${MMMQ_CONTEXT_TYPE}:o-2`]);
  });
});

import {
  ArgumentMetadata,
  ArgumentsHost,
  CallHandler,
  CanActivate,
  Catch,
  ExceptionFilter,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  ParseIntPipe,
  PipeTransform,
  UseFilters,
  UseGuards,
  UseInterceptors,
  ValidationPipe,
} from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { catchError, Observable, of, tap, throwError } from 'rxjs';
import {
  Ctx,
  MessageContext,
  MMMQ_CONTEXT_TYPE,
  MmmqConsumerModule,
  MmmqContextType,
  MMMQListener,
  NonRetriableError,
  Payload,
} from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { ConsumerApp, freePort, startConsumer } from '../support/consumer-app';
import { OrderCreated, validOrder } from '../support/order-created.dto';

interface Seen {
  type: string;
  handler: string;
  data: unknown;
  context: unknown;
  ms: number;
}
const intercepted: Seen[] = [];
const pipedTypes: string[] = [];

/** A global pipe that transforms: it stamps the content, and sees the context as a 'custom' parameter. */
class StampPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    pipedTypes.push(metadata.type);
    return metadata.type === 'body' && value instanceof OrderCreated ? Object.assign(value, { stamped: true }) : value;
  }
}

/** Registered as an APP_INTERCEPTOR provider: sees every handled message (and the HTTP delivery route), and times it. */
@Injectable()
class TimingInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const started = performance.now();
    const rpc = context.switchToRpc();
    const seen = { type: context.getType(), handler: context.getHandler().name, data: rpc.getData(), context: rpc.getContext(), ms: -1 };
    intercepted.push(seen);
    return next.handle().pipe(tap({ finalize: () => (seen.ms = performance.now() - started) }));
  }
}

/** Per handler: turns a failure into a success, so the message is acknowledged instead of retried. */
@Injectable()
class RecoverInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(catchError(() => of('recovered')));
  }
}

@Injectable()
class TenantGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return (
      context.getType<MmmqContextType>() === MMMQ_CONTEXT_TYPE &&
      context.switchToRpc().getContext<MessageContext>().headers.tenant === 'acme'
    );
  }
}

class OutOfStockError extends Error {}

@Catch(OutOfStockError)
class OutOfStockFilter implements ExceptionFilter {
  readonly caught: string[] = [];
  catch(error: OutOfStockError, host: ArgumentsHost): string | Observable<never> {
    this.caught.push(`${host.getType()}: ${error.message} (${host.switchToRpc().getContext<MessageContext>().topic})`);
    // As an RpcExceptionFilter would: an observable that errors is the handler's error.
    if (error.message.startsWith('o-9')) return throwError(() => new NonRetriableError(`${error.message}, and discontinued`));
    return 'skipped';
  }
}
const outOfStock = new OutOfStockFilter();

/** Logs and returns nothing: the exception stands, as in Nest. */
@Catch()
class LogOnlyFilter implements ExceptionFilter {
  readonly logged: string[] = [];
  catch(error: Error): void {
    this.logged.push(error.message);
  }
}
const logOnly = new LogOnlyFilter();

@Injectable()
class Orders {
  readonly received: Record<string, unknown[]> = { positional: [], decorated: [], quantity: [], guarded: [], recovered: [], logged: [] };
  failures = 0;

  @MMMQListener('order.created', { consumerId: 'shop.positional' })
  positional(order: OrderCreated, context: MessageContext): void {
    this.received.positional.push([order, context]);
  }

  @MMMQListener('order.created', { consumerId: 'shop.decorated' })
  decorated(@Payload() order: OrderCreated, @Ctx() context: MessageContext): void {
    this.received.decorated.push([order, context]);
  }

  @MMMQListener('order.quantity', { consumerId: 'shop.quantity' })
  quantity(@Payload('quantity', ParseIntPipe) quantity: number): void {
    this.received.quantity.push(quantity);
  }

  @UseGuards(TenantGuard)
  @MMMQListener('order.guarded', { consumerId: 'shop.guarded' })
  guarded(@Payload() order: OrderCreated): void {
    this.received.guarded.push(order.orderId);
  }

  @UseFilters(outOfStock)
  @MMMQListener('order.filtered', { consumerId: 'shop.filtered' })
  filtered(order: OrderCreated): void {
    throw new OutOfStockError(`${order.orderId} is out of stock`);
  }

  @UseFilters(logOnly)
  @MMMQListener('order.logged', { consumerId: 'shop.logged' })
  logged(order: OrderCreated, context: MessageContext): void {
    this.received.logged.push(context.deliveryCount);
    if (context.deliveryCount === 1) throw new Error(`${order.orderId} failed on attempt 1`);
  }

  @UseInterceptors(RecoverInterceptor)
  @MMMQListener('order.recovered', { consumerId: 'shop.recovered' })
  recovered(order: OrderCreated): void {
    this.failures++;
    throw new Error(`${order.orderId} failed`);
  }
}

describe('Nest pipes, guards, interceptors and filters on listeners, over HTTP', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp;
  const publish = async (topic: string, content: unknown, headers: Record<string, string> = {}) => {
    const response = await broker.request('POST', '/mmmq/messages', { topic, content, headers });
    expect(response.status).toBe(200);
  };
  const reasons = async (consumerId: string) =>
    (await broker.deadLetters(consumerId)).map((letter) => [letter.headers['mmmq-dlq-reason'], letter.headers['mmmq-dlq-last-error']]);

  beforeAll(async () => {
    broker = await startBroker();
    const port = await freePort();
    const module = MmmqConsumerModule.forRoot({
      app: 'shop',
      broker: broker.url,
      advertisedUrl: `http://127.0.0.1:${port}`,
      registration: { backoffMs: 50 },
    });
    consumer = await startConsumer(
      {
        imports: [module],
        providers: [Orders, TenantGuard, RecoverInterceptor, { provide: APP_INTERCEPTOR, useClass: TimingInterceptor }],
      },
      {
        port,
        configure: (app) =>
          app.useGlobalPipes(new ValidationPipe({ transform: true, whitelist: true, forbidNonWhitelisted: true }), new StampPipe()),
      },
    );
    await publish('order.created', validOrder('o-1'));
    await publish('order.created', { ...validOrder('o-2'), coupon: 'FREE' });
    await publish('order.quantity', { orderId: 'o-7', quantity: '3' });
    await publish('order.quantity', { orderId: 'o-8', quantity: 'three' });
    await publish('order.guarded', validOrder('o-3'), { tenant: 'acme' });
    await publish('order.guarded', validOrder('o-4'), { tenant: 'other' });
    await publish('order.filtered', validOrder('o-5'));
    await publish('order.filtered', validOrder('o-9'));
    await publish('order.recovered', validOrder('o-6'));
    await publish('order.logged', validOrder('o-10'));
    for (const [consumerId, topic] of [
      ['shop.positional', 'order.created'],
      ['shop.decorated', 'order.created'],
      ['shop.quantity', 'order.quantity'],
      ['shop.guarded', 'order.guarded'],
      ['shop.filtered', 'order.filtered'],
      ['shop.recovered', 'order.recovered'],
      ['shop.logged', 'order.logged'],
    ]) {
      await broker.caughtUp(consumerId, topic);
    }
  });
  afterAll(async () => {
    await consumer?.close();
    await broker?.close();
  });

  it('runs global pipes on positional and @Payload() content, after the built-in conversion, and not on the context', () => {
    const orders = consumer.app.get(Orders);
    for (const style of ['positional', 'decorated']) {
      const [[order, context]] = orders.received[style] as Array<[OrderCreated, MessageContext]>;
      expect(order).toBeInstanceOf(OrderCreated);
      expect(order).toMatchObject({ orderId: 'o-1', stamped: true });
      expect(context).toBeInstanceOf(MessageContext);
      expect(orders.received[style]).toHaveLength(1);
    }
    expect(pipedTypes).toContain('custom');
  });

  it('dead-letters at once, with the pipe message as the reason, what a global ValidationPipe refuses', async () => {
    for (const consumerId of ['shop.positional', 'shop.decorated']) {
      expect(await reasons(consumerId)).toEqual([['REJECTED', 'BadRequestException (400): property coupon should not exist']]);
    }
  });

  it('gives @Payload(property, PipeClass) the property, through the pipe, which Nest builds from its class', async () => {
    expect(consumer.app.get(Orders).received.quantity).toEqual([3]);
    expect(await reasons('shop.quantity')).toEqual([
      ['REJECTED', 'BadRequestException (400): Validation failed (numeric string is expected)'],
    ]);
  });

  it('dead-letters at once what a handler guard refuses, without running the handler', async () => {
    expect(consumer.app.get(Orders).received.guarded).toEqual(['o-3']);
    expect(await reasons('shop.guarded')).toEqual([['REJECTED', 'ForbiddenException (403): Forbidden resource']]);
    const refused = (await broker.deadLetters('shop.guarded'))[0];
    expect(refused.headers['mmmq-dlq-attempts']).toBe(1);
  });

  it('acknowledges what an exception filter catches and turns into a result, and fails what its observable fails', async () => {
    expect(outOfStock.caught).toEqual([
      `${MMMQ_CONTEXT_TYPE}: o-5 is out of stock (order.filtered)`,
      `${MMMQ_CONTEXT_TYPE}: o-9 is out of stock (order.filtered)`,
    ]);
    expect(await reasons('shop.filtered')).toEqual([['REJECTED', 'o-9 is out of stock, and discontinued']]);
  });

  it('retries what a filter only logs: a filter that returns nothing leaves the exception standing', () => {
    expect(logOnly.logged).toEqual(['o-10 failed on attempt 1']);
    expect(consumer.app.get(Orders).received.logged).toEqual([1, 2]);
  });

  it('lets a handler interceptor transform the outcome: a recovered failure is acknowledged, not retried', async () => {
    expect(consumer.app.get(Orders).failures).toBe(1);
    expect(await broker.deadLetters('shop.recovered')).toEqual([]);
  });

  it('shows a global interceptor every handled message, in context type mmmq, with the content and the MessageContext', () => {
    const listenerCalls = intercepted.filter(({ type }) => type === MMMQ_CONTEXT_TYPE);
    const handled = listenerCalls.map(({ handler, data }) => `${handler}:${(data as OrderCreated).orderId}`).sort();
    expect(handled).toEqual(
      [
        'decorated:o-1',
        'decorated:o-2',
        'filtered:o-5',
        'filtered:o-9',
        'guarded:o-3',
        'logged:o-10',
        'logged:o-10',
        'positional:o-1',
        'positional:o-2',
        'quantity:o-7',
        'quantity:o-8',
        'recovered:o-6',
      ].sort(),
    );
    expect(listenerCalls.every(({ context }) => context instanceof MessageContext)).toBe(true);
    expect(listenerCalls.every(({ ms }) => ms >= 0)).toBe(true);
  });
});

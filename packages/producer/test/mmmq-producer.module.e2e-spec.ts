import type { AddressInfo } from 'node:net';
import { Body, Controller, INestApplication, Injectable, Module, Post } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { InvalidProducerOptionsError, MmmqProducerModule, Producer, ProducerClosedError } from '../src';
import { BrokerApp, startBroker } from './support/broker-app';

interface OrderEvents {
  'order.created': { orderId: number };
}

@Injectable()
class OrderService {
  constructor(private readonly producer: Producer<OrderEvents>) {}

  place(orderId: number) {
    return this.producer.produce('order.created', { orderId });
  }
}

@Controller('orders')
class OrderController {
  constructor(private readonly orders: OrderService) {}

  @Post()
  place(@Body() body: { orderId: number }) {
    return this.orders.place(body.orderId);
  }
}

/** A feature module that does not import the producer module: it relies on `isGlobal`. */
@Module({ controllers: [OrderController], providers: [OrderService] })
class OrdersModule {}

function appModule(brokerUrl: string) {
  @Module({
    imports: [
      ConfigModule.forRoot({ ignoreEnvFile: true, load: [() => ({ MMMQ_BROKER: brokerUrl })] }),
      MmmqProducerModule.forRootAsync({
        isGlobal: true,
        imports: [ConfigModule],
        inject: [ConfigService],
        useFactory: (config: ConfigService) => ({
          broker: config.getOrThrow<string>('MMMQ_BROKER'),
          maxRetryCount: 1,
        }),
      }),
      OrdersModule,
    ],
  })
  class AppModule {}
  return AppModule;
}

describe('MmmqProducerModule in a Nest application', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker();
  });

  afterAll(() => broker.close());

  it('publishes from a service of an HTTP app configured through @nestjs/config', async () => {
    const app: INestApplication = await NestFactory.create(appModule(broker.url), { logger: false });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/orders`, {
      method: 'POST',
      body: JSON.stringify({ orderId: 42 }),
      headers: { 'content-type': 'application/json' },
    });
    const published = (await response.json()) as { id: string };
    expect(response.status).toBe(201);
    expect(published).toEqual({ id: expect.any(String), topic: 'order.created', offset: 0, deliveryMode: 'persistent' });
    expect(await broker.stored('order.created')).toEqual([{ id: published.id, headers: {}, content: '{"orderId":42}' }]);

    const producer = app.get(Producer);
    await app.close();
    await expect(producer.produce('order.created', { orderId: 43 })).rejects.toThrow(ProducerClosedError);
    expect(producer.close()).toBe(producer.close());
    await expect(producer.close()).resolves.toBeUndefined();
  });

  it.each([
    [{}, /^broker is required/],
    [{ broker: 'ftp://localhost:21' }, /^broker must be an http, https, mmmq or mmmqs URL, got "ftp:\/\/localhost:21"/],
    [{ broker: 'localhost:8080' }, /^broker must be an http, https, mmmq or mmmqs URL/],
    [{ broker: 'http://localhost:8080', maxRetryCount: -1 }, /^maxRetryCount must be a non-negative integer, got -1/],
    [{ broker: 'http://localhost:8080', timeoutMs: 0 }, /^timeoutMs must be a positive integer, got 0/],
    [{ broker: 'http://localhost:8080', maxRetries: 5 }, /^Unknown producer option "maxRetries"/],
  ])('fails bootstrap on invalid options %j, naming the option', async (options, message) => {
    @Module({ imports: [MmmqProducerModule.forRoot(options as never)] })
    class InvalidApp {}
    const error = await NestFactory.createApplicationContext(InvalidApp, { logger: false, abortOnError: false }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InvalidProducerOptionsError);
    expect((error as Error).message).toMatch(message);
  });

  it('fails bootstrap on invalid options from forRootAsync too', async () => {
    @Module({
      imports: [MmmqProducerModule.forRootAsync({ useFactory: () => ({ broker: 'http://x:1', retryDelayMs: 1.5 }) })],
    })
    class InvalidAsyncApp {}
    await expect(NestFactory.createApplicationContext(InvalidAsyncApp, { logger: false, abortOnError: false })).rejects.toThrow(
      /^retryDelayMs must be a non-negative integer, got 1.5/,
    );
  });

  it('takes isGlobal in forRoot too, without mistaking it for a producer option', async () => {
    @Module({ imports: [MmmqProducerModule.forRoot({ broker: broker.url, isGlobal: true }), OrdersModule] })
    class GlobalApp {}
    const app = await NestFactory.createApplicationContext(GlobalApp, { logger: false });
    await expect(app.get(OrderService).place(7)).resolves.toMatchObject({ topic: 'order.created' });
    await app.close();
  });

  it('is not global unless asked to be', async () => {
    @Module({ imports: [MmmqProducerModule.forRoot({ broker: broker.url })] })
    class ProducerOnly {}
    @Module({ imports: [ProducerOnly, OrdersModule] })
    class LocalApp {}
    await expect(NestFactory.createApplicationContext(LocalApp, { logger: false, abortOnError: false })).rejects.toThrow(/Producer/);
  });
});

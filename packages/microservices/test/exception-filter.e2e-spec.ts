import {
  BadRequestException,
  Controller,
  Get,
  Module,
  INestApplication,
  INestMicroservice,
  UseFilters,
  ValidationPipe,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, Payload } from '@nestjs/microservices';
import { BrokerApp, FAST_BACKOFF, freePort, startBroker, waitFor } from '@mmmq/test-support';
import type { Server } from 'node:http';
import { MmmqExceptionFilter, MmmqServer } from '../src';
import { OrderCreatedDto } from './support/portable/order-created.dto';
import { startMicroservice } from './support/microservice-app';

const attempts: string[] = [];

@Controller()
class OrdersController {
  @EventPattern('order.placed')
  placed(@Payload() order: OrderCreatedDto): void {
    attempts.push(order.orderId);
    if (order.orderId === 'db-down') throw new Error('database connection refused');
  }
}

const CONSUMER_ID = 'shop.order.placed';

describe('MmmqExceptionFilter on a microservice with a default ValidationPipe', () => {
  let broker: BrokerApp;
  let microservice: INestMicroservice;

  beforeAll(async () => {
    broker = await startBroker({ delivery: { ...FAST_BACKOFF, maxNackRetries: 1 } });
    const port = await freePort();
    const options = { app: 'shop', broker: broker.url, advertisedUrl: `http://127.0.0.1:${port}`, host: '127.0.0.1' };
    ({ app: microservice } = await startMicroservice([OrdersController], options, (app) => {
      app.useGlobalPipes(new ValidationPipe({ transform: true }));
      app.useGlobalFilters(new MmmqExceptionFilter());
    }));
  });
  afterAll(async () => {
    await microservice?.close();
    await broker?.close();
  });

  const deadLetter = async (orderId: unknown) =>
    (await broker.deadLetters(CONSUMER_ID)).find((letter) => letter.content.orderId === orderId);

  it('dead-letters what the ValidationPipe refuses (a BadRequestException) at once, with its messages', async () => {
    await broker.publish('order.placed', { orderId: 42, quantity: 1 });
    await waitFor(async () => (await deadLetter(42)) !== undefined, { message: 'the invalid order dead-lettered' });
    expect((await deadLetter(42)).headers).toMatchObject({
      'mmmq-dlq-attempts': 1,
      'mmmq-dlq-last-error': 'BadRequestException (400): orderId must be a string',
    });
  });

  it('retries a plain Error and keeps its own message as the last error, not "Internal server error"', async () => {
    await broker.publish('order.placed', { orderId: 'db-down', quantity: 1 });
    await waitFor(async () => (await deadLetter('db-down')) !== undefined, { message: 'db-down dead-lettered after its retry' });
    expect((await deadLetter('db-down')).headers).toMatchObject({
      'mmmq-dlq-attempts': 2,
      'mmmq-dlq-last-error': 'database connection refused',
    });
    expect(attempts.filter((orderId) => orderId === 'db-down')).toHaveLength(2);
  });
});

@Controller()
@UseFilters(MmmqExceptionFilter)
class RoutesController {
  @Get('refused')
  refused(): never {
    throw new BadRequestException('quantity must be positive');
  }

  @Get('broken')
  broken(): never {
    throw new Error('disk on fire');
  }
}

describe('MmmqExceptionFilter on a controller that also serves HTTP routes', () => {
  let app: INestApplication;

  beforeAll(async () => {
    @Module({ controllers: [RoutesController] })
    class RoutesModule {}
    app = await NestFactory.create(RoutesModule, { abortOnError: false });
    await app.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers HTTP requests as Nest’s default filter does', async () => {
    const url = await app.getUrl();
    const refused = await fetch(`${url}/refused`);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ statusCode: 400, message: 'quantity must be positive', error: 'Bad Request' });
    const broken = await fetch(`${url}/broken`);
    expect(broken.status).toBe(500);
    expect(await broken.json()).toEqual({ statusCode: 500, message: 'Internal server error' });
  });
});

@Controller()
class HybridController {
  @Get('refused')
  refused(): never {
    throw new BadRequestException('quantity must be positive');
  }

  @EventPattern('order.placed')
  placed(@Payload() order: OrderCreatedDto): void {
    attempts.push(order.orderId);
  }
}

describe('MmmqExceptionFilter as a global filter of a hybrid application', () => {
  let broker: BrokerApp;
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    broker = await startBroker({ delivery: FAST_BACKOFF });
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    @Module({ controllers: [HybridController] })
    class HybridModule {}
    app = await NestFactory.create(HybridModule, { abortOnError: false });
    app.useGlobalPipes(new ValidationPipe({ transform: true }));
    app.useGlobalFilters(new MmmqExceptionFilter(app.getHttpAdapter()));
    const strategy = new MmmqServer({ app: 'hybrid', broker: broker.url, advertisedUrl: url, httpServer: app.getHttpServer() as Server });
    app.connectMicroservice({ strategy }, { inheritAppConfig: true });
    await app.startAllMicroservices();
    await app.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
    await broker?.close();
  });

  it('dead-letters a refused message with its reason, and answers the HTTP routes as Nest does', async () => {
    await broker.publish('order.placed', { orderId: 7, quantity: 1 });
    await waitFor(async () => (await broker.deadLetters('hybrid.order.placed')).length === 1, {
      message: 'the invalid order dead-lettered',
    });
    const [letter] = await broker.deadLetters('hybrid.order.placed');
    expect(letter.headers).toMatchObject({
      'mmmq-dlq-attempts': 1,
      'mmmq-dlq-last-error': 'BadRequestException (400): orderId must be a string',
    });
    const refused = await fetch(`${url}/refused`);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ statusCode: 400, message: 'quantity must be positive', error: 'Bad Request' });
  });
});

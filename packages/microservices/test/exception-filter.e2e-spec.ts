import { Controller, INestMicroservice, ValidationPipe } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { BrokerApp, FAST_BACKOFF, freePort, startBroker, waitFor } from '@mmmq/test-support';
import { MmmqExceptionFilter } from '../src';
import { OrderPlaced } from './support/order-placed.dto';
import { startMicroservice } from './support/microservice-app';

const attempts: string[] = [];

@Controller()
class OrdersController {
  @EventPattern('order.placed')
  placed(@Payload() order: OrderPlaced): void {
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

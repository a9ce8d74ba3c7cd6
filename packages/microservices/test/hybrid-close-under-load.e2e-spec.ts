import { Controller, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, Payload } from '@nestjs/microservices';
import { BrokerApp, freePort, range, startBroker, waitFor } from '@mmmq/test-support';
import type { Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { MmmqServer } from '../src';

const handled: number[] = [];

@Controller()
class WorkController {
  @EventPattern('work.item')
  async item(@Payload() item: { n: number }): Promise<void> {
    await delay(5); // a little work per message, so that a backlog lasts
    handled.push(item.n);
  }
}

@Module({ controllers: [WorkController] })
class WorkModule {}

const CONSUMER_ID = 'load.work.item';
const BACKLOG = 1000;
const BATCH = 10;

describe('a hybrid application closing while the broker still pushes a backlog to its shared port', () => {
  let broker: BrokerApp;
  let app: INestApplication;

  beforeAll(async () => {
    broker = await startBroker();
    const port = await freePort();
    app = await NestFactory.create(WorkModule, { abortOnError: false });
    const server = new MmmqServer({
      app: 'load',
      broker: broker.url,
      advertisedUrl: `http://127.0.0.1:${port}`,
      httpServer: app.getHttpServer() as Server,
      deliveryBatchSize: BATCH,
    });
    app.connectMicroservice({ strategy: server });
    await app.startAllMicroservices();
    await app.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
    await broker?.close();
  });

  it('stops taking pushes once the server closes, finishes those in hand, and acknowledges exactly what it handled', async () => {
    await broker.publishAll(
      'work.item',
      range(BACKLOG).map((n) => ({ n })),
    );
    await waitFor(() => handled.length >= 50, { message: 'the first 50 items handled' });
    const handledAtClose = handled.length;
    await app.close();

    // Only the pushes already on their way (maxInFlight, 4 by default, of BATCH each) were handled after the close,
    // not the rest of the backlog, and the close did not wait for the backlog to drain.
    expect(handled.length).toBeLessThanOrEqual(handledAtClose + 5 * BATCH);
    expect(new Set(handled).size).toBe(handled.length);
    const subscription = await broker.subscription(CONSUMER_ID, 'work.item');
    expect(subscription).toMatchObject({ leased: 0, lag: BACKLOG - handled.length });
  });
});

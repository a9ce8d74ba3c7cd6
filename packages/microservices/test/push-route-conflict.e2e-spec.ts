import { MmmqConsumerModule, MMMQListener } from '@mmmq/consumer';
import { PushRouteConflictError } from '@mmmq/core';
import { BrokerApp, freePort, startBroker } from '@mmmq/test-support';
import { Controller, Injectable, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern } from '@nestjs/microservices';
import type { Server } from 'node:http';
import { MmmqServer } from '../src';

const CONSUMER_ID = 'shop.billing';

@Injectable()
class Billing {
  @MMMQListener('order.*', { consumerId: CONSUMER_ID })
  onOrder(): void {}
}

@Controller()
class ShopController {
  @EventPattern('order.*', { consumerId: CONSUMER_ID })
  placed(): void {}
}

describe('an MmmqServer handler and a listener of MmmqConsumerModule with one consumer id, on one HTTP server', () => {
  let broker: BrokerApp;
  let app: INestApplication | undefined;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    await app?.close();
    await broker.close();
  });

  it('fail the start, naming both and the fix: only the first would ever receive their pushes', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    @Module({
      imports: [MmmqConsumerModule.forRoot({ app: 'shop', broker: broker.url, advertisedUrl: url })],
      providers: [Billing],
      controllers: [ShopController],
    })
    class ShopModule {}
    app = await NestFactory.create(ShopModule, { logger: false, abortOnError: false });
    await app.init();
    app.connectMicroservice({
      strategy: new MmmqServer({ app: 'shop', broker: broker.url, advertisedUrl: url, httpServer: app.getHttpServer() as Server }),
    });
    const started = app.startAllMicroservices();
    await expect(started).rejects.toBeInstanceOf(PushRouteConflictError);
    await expect(started).rejects.toThrow(
      `Two modules of this application take the pushes of consumer id "${CONSUMER_ID}": MmmqConsumerModule (Billing.onOrder) and ` +
        `MmmqServer (@EventPattern("order.*"))`,
    );
  });
});

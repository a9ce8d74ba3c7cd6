import type { AddressInfo } from 'node:net';
import { CONSUMER_ID_HEADER, MESSAGES_PATH } from '@mmmq/core';
import { waitFor } from '@mmmq/test-support';
import { Controller, Get, INestApplication, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { MmmqConsumerHealthIndicator, MmmqConsumerModule, MMMQListener } from '@mmmq/consumer';

// Lives with the broker's tests because the consumer package does not depend on terminus, not even for its tests.
const MAX_HANDLER_MS = 100;
let release: (() => void) | undefined;

@Injectable()
class HangingListener {
  @MMMQListener('order.*', { consumerId: 'billing' })
  async onOrder(): Promise<void> {
    await new Promise<void>((resolve) => (release = resolve));
  }
}

/** What a user writes: the consumer's indicator in terminus's `HealthCheckService`. */
@Controller('health')
class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly mmmq: MmmqConsumerHealthIndicator,
  ) {}

  @Get()
  @HealthCheck({ noCache: true, swaggerDocumentation: false })
  check() {
    return this.health.check([() => this.mmmq.isHealthy('mmmq', { maxHandlerMs: MAX_HANDLER_MS })]);
  }
}

@Module({
  imports: [MmmqConsumerModule.forRoot({}), TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [HangingListener],
})
class ConsumerAppModule {}

describe('the consumer health indicator in a terminus health check', () => {
  let app: INestApplication | undefined;

  afterEach(async () => {
    release?.();
    await app?.close();
  });

  it('is up when idle, 503 naming the stuck handler while one runs past maxHandlerMs, and up again when it ends', async () => {
    app = await NestFactory.create(ConsumerAppModule, { logger: false });
    await app.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    const health = () => fetch(`${url}/health`);

    const idle = await health();
    expect(idle.status).toBe(200);
    expect(await idle.json()).toMatchObject({
      status: 'ok',
      info: { mmmq: { status: 'up', handlers: { running: 0, waiting: 0, longestRunningMs: 0, queueFullMs: 0 } } },
    });

    const delivery = { id: 'm-1', topic: 'order.created', content: {}, headers: {}, offset: 0, deliveryCount: 1, redelivered: false };
    const answer = fetch(url + MESSAGES_PATH, {
      method: 'POST',
      body: JSON.stringify({ ...delivery, publishedAt: Date.now() }),
      headers: { 'content-type': 'application/json', [CONSUMER_ID_HEADER]: 'billing' },
    });
    await waitFor(() => release !== undefined, { message: 'the handler to start' });
    await waitFor(async () => (await health()).status === 503, { message: 'the check to report the stuck handler' });
    const stuck = await (await health()).json();
    expect(stuck).toMatchObject({
      status: 'error',
      error: { mmmq: { status: 'down', message: expect.stringMatching(/^a handler has run for \d+ ms \(maxHandlerMs 100\)$/) } },
    });

    release!();
    expect((await answer).status).toBe(200);
    await waitFor(async () => (await health()).status === 200, { message: 'the check to recover once the handler ended' });
  });
});

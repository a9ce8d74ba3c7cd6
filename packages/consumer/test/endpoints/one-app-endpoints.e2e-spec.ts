import { MmmqBrokerModule } from '@mmmq/broker';
import { makeTempDir, removeTempDir } from '@mmmq/test-support';
import { Controller, Get, Injectable, INestApplication, Module } from '@nestjs/common';
import { NestFactory, RouterModule } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Registry } from 'prom-client';
import { InvalidConsumerOptionsError, MmmqConsumerModule, MMMQListener } from '../../src';
import { httpGet, promSample } from '../support/http-get';
import { waitFor } from '../support/wait-for';

@Injectable()
class Billing {
  handled = 0;

  @MMMQListener('order.*', { consumerId: 'billing' })
  onOrder(): void {
    this.handled += 1;
  }
}

type BrokerExtras = Pick<NonNullable<Parameters<typeof MmmqBrokerModule.forRoot>[0]>, 'health' | 'metrics'>;
type ConsumerExtras = Pick<NonNullable<Parameters<typeof MmmqConsumerModule.forRoot>[0]>, 'health' | 'metrics'>;

describe.each([
  ['express', () => undefined],
  ['fastify', () => new FastifyAdapter()],
])('health and metrics of a consumer in one %s application with the broker', (_platform, adapter) => {
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

  async function start(extras: ConsumerExtras, brokerExtras: BrokerExtras = {}): Promise<INestApplication> {
    @Module({
      imports: [MmmqBrokerModule.forRoot({ persistence: { rootDir }, ...brokerExtras }), MmmqConsumerModule.forRoot(extras)],
      providers: [Billing],
    })
    class AppModule {}
    const platform = adapter();
    const created =
      platform === undefined
        ? await NestFactory.create(AppModule, { abortOnError: false, logger: false })
        : await NestFactory.create(AppModule, platform, { abortOnError: false, logger: false });
    try {
      await created.listen(0, '127.0.0.1');
    } catch (error) {
      await created.close().catch(() => undefined);
      throw error;
    }
    return created;
  }

  it("refuses to start when the consumer's probes would take the broker's /health routes, naming the option", async () => {
    const failure = start({ health: true });
    await expect(failure).rejects.toThrow(InvalidConsumerOptionsError);
    await expect(failure).rejects.toThrow(
      /^MmmqConsumerModule option health: GET \/health\/live is served already by HealthController of MmmqBrokerModule; .*e\.g\. health: \{ path: 'health\/consumer' \}/,
    );
  });

  it("refuses to start when the consumer's /metrics would take the broker's, naming the option", async () => {
    await expect(start({ metrics: { registry: new Registry() } })).rejects.toThrow(
      /^MmmqConsumerModule option metrics: GET \/metrics is served already by MetricsController of MmmqBrokerModule; .*metrics: \{ path: 'metrics\/consumer' \}/,
    );
  });

  it('serves both, each at its own path, when the consumer is given other paths', async () => {
    const registry = new Registry();
    app = await start({ health: { path: 'health/consumer' }, metrics: { path: 'metrics/consumer', registry } });
    const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    await waitFor(async () => (await httpGet(`${url}/health/consumer/ready`)).status === 200, 'the consumer ready');
    expect((await httpGet(`${url}/health/ready`)).status).toBe(200);

    const published = await fetch(`${url}/mmmq/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ topic: 'order.created', content: { orderId: '1' } }),
    });
    expect(published.status).toBe(200);
    await waitFor(() => app!.get(Billing).handled === 1, 'the order handled');
    await waitFor(
      async () =>
        promSample((await httpGet(`${url}/metrics/consumer`)).text, 'mmmq_consumer_handler_duration_seconds_count', { outcome: 'ack' }) ===
        1,
      "the run counted at the consumer's /metrics/consumer",
    );
    const brokerScrape = await httpGet(`${url}/metrics`);
    expect(brokerScrape.status).toBe(200);
    expect(brokerScrape.text).toContain('mmmq_');
    expect(brokerScrape.text).not.toContain('mmmq_consumer_handler_duration_seconds');
  });

  it("serves the consumer's probes and /metrics at the default paths when the broker's are off", async () => {
    app = await start({ health: true, metrics: { registry: new Registry() } }, { health: { enabled: false }, metrics: { enabled: false } });
    const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    const ready = await httpGet(`${url}/health/ready`);
    await waitFor(async () => (await httpGet(`${url}/health/ready`)).status === 200, `the consumer ready (${ready.text})`);
    expect(JSON.parse((await httpGet(`${url}/health/ready`)).text).info).toHaveProperty('mmmq-consumer');
    expect(promSample((await httpGet(`${url}/metrics`)).text, 'mmmq_consumer_handlers_running')).toBe(0);
  });
});

it.each([
  ['before', true],
  ['after', false],
])(
  "counts a RouterModule's path: a broker mounted under /broker leaves /health and /metrics to the consumer (router %s)",
  async (_order, routerFirst) => {
    const rootDir = await makeTempDir();
    const broker = MmmqBrokerModule.forRoot({ persistence: { rootDir } });
    const consumer = MmmqConsumerModule.forRoot({ health: true, metrics: { registry: new Registry() } });
    const router = RouterModule.register([{ path: 'broker', module: MmmqBrokerModule }]);
    @Module({ imports: routerFirst ? [router, consumer, broker] : [consumer, broker, router] })
    class AppModule {}
    const app = await NestFactory.create(AppModule, { logger: false, abortOnError: false });
    try {
      await app.listen(0, '127.0.0.1');
      const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      expect((await httpGet(`${url}/broker/health/ready`)).status).toBe(200);
      expect((await httpGet(`${url}/broker/metrics`)).status).toBe(200);
      expect((await httpGet(`${url}/health/live`)).status).toBe(200);
      expect(promSample((await httpGet(`${url}/metrics`)).text, 'mmmq_consumer_handlers_running')).toBe(0);
    } finally {
      await app.close();
      await removeTempDir(rootDir);
    }
  },
);

it("refuses a route the application's own controller declares, and the consumer's two options taking one route", async () => {
  @Controller('health')
  class OwnHealth {
    @Get('ready')
    ready(): string {
      return 'ok';
    }
  }
  @Module({ imports: [MmmqConsumerModule.forRoot({ health: true })], controllers: [OwnHealth] })
  class OwnHealthModule {}
  await expect(NestFactory.create(OwnHealthModule, { logger: false, abortOnError: false })).rejects.toThrow(
    /^MmmqConsumerModule option health: GET \/health\/ready is served already by OwnHealth of OwnHealthModule/,
  );

  @Module({ imports: [MmmqConsumerModule.forRoot({ health: { path: 'ops' }, metrics: { path: 'ops/live', registry: new Registry() } })] })
  class SelfCollision {}
  await expect(NestFactory.create(SelfCollision, { logger: false, abortOnError: false })).rejects.toThrow(
    /^MmmqConsumerModule option health: GET \/ops\/live is served already by MmmqConsumerMetricsController of MmmqConsumerModule/,
  );
});

import { Injectable } from '@nestjs/common';
import { MmmqConsumerModule, MMMQListener, MmmqConsumerOptions } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { CapturedLogger } from '../support/captured-logger';
import { ConsumerApp, freePort, startConsumer } from '../support/consumer-app';
import { registered } from '../support/registered-consumer';
import { waitFor } from '../support/wait-for';

@Injectable()
class InvoiceListener {
  readonly received: unknown[] = [];

  @MMMQListener('order.*')
  onOrder(content: unknown): void {
    this.received.push(content);
  }
}

@Injectable()
class AuditListener implements MMMQListener {
  readonly received: unknown[] = [];

  listens(): string {
    return '**';
  }

  handle(content: unknown): void {
    this.received.push(content);
  }
}

describe('self-registration', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp | undefined;

  async function start(port: number, logger = new CapturedLogger()): Promise<ConsumerApp> {
    const options: MmmqConsumerOptions = {
      app: 'billing',
      broker: broker.url,
      advertisedUrl: `http://127.0.0.1:${port}`,
      listeners: { AuditListener: { startFrom: 'latest' } },
    };
    const consumer = await startConsumer(
      { imports: [MmmqConsumerModule.forRoot(options)], providers: [InvoiceListener, AuditListener] },
      { port, logger },
    );
    await registered(consumer.app);
    return consumer;
  }

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    await consumer?.close();
    await broker?.close();
  });

  it('registers one dispatcher per listener once it listens, with the advertised URL and the pattern', async () => {
    await broker.publish('order.created', { n: 0 });
    const port = await freePort();
    consumer = await start(port);

    const { body } = await broker.request('GET', '/mmmq/dispatchers');
    expect(body).toEqual([
      expect.objectContaining({
        consumerId: 'billing.invoice-listener.on-order',
        host: { protocol: 'HTTP', address: '127.0.0.1', port },
        pattern: 'order.*',
        startFrom: 'earliest',
      }),
      expect.objectContaining({
        consumerId: 'billing.audit-listener',
        host: { protocol: 'HTTP', address: '127.0.0.1', port },
        pattern: '**',
        startFrom: 'latest',
      }),
    ]);
    // `earliest` catches up with the message published before the dispatcher existed; `latest` does not.
    await waitFor(() => consumer!.app.get(InvoiceListener).received.length === 1, 'the backlog');
    await broker.publish('order.created', { n: 1 });
    await waitFor(() => consumer!.app.get(AuditListener).received.length === 1, 'the audit listener');
    expect(consumer.app.get(AuditListener).received).toEqual([{ n: 1 }]);
  });

  it('leaves its dispatchers on shutdown, joins them again when it starts again, and receives what was published meanwhile', async () => {
    const port = consumer!.port;
    const before = (await broker.request('GET', '/mmmq/dispatchers')).body;
    await consumer!.close();
    // Its host left the dispatchers; they keep everything else (and their positions) while nobody receives.
    const left = (await broker.request('GET', '/mmmq/dispatchers')).body;
    expect(left).toEqual(before.map(({ host: _host, ...rest }: { host: unknown }) => rest));
    await broker.publish('order.created', { n: 2 });

    const logger = new CapturedLogger();
    consumer = await start(port, logger);
    expect((await broker.request('GET', '/mmmq/dispatchers')).body).toEqual(before);
    expect(logger.lines.filter((line) => line.includes('joined by this host'))).toHaveLength(2);
    await waitFor(() => consumer!.app.get(InvoiceListener).received.length === 1, 'the message published while down');
    expect(consumer.app.get(InvoiceListener).received).toEqual([{ n: 2 }]);
  });

  it('moves the dispatchers when the application comes back at another address', async () => {
    await consumer!.close();
    const port = await freePort();
    consumer = await start(port);

    const { body } = await broker.request('GET', '/mmmq/dispatchers');
    expect(body).toHaveLength(2);
    for (const dispatcher of body) expect(dispatcher.host).toEqual({ protocol: 'HTTP', address: '127.0.0.1', port });
    await broker.publish('order.created', { n: 3 });
    await waitFor(() => consumer!.app.get(InvoiceListener).received.length === 1, 'delivery to the new address');
    expect(consumer.app.get(InvoiceListener).received).toEqual([{ n: 3 }]);
  });
});

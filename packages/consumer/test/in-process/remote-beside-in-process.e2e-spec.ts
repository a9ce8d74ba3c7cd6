import { MmmqBrokerModule } from '@mmmq/broker';
import { MmmqProducerModule, Producer } from '@mmmq/producer';
import { makeTempDir, removeTempDir, TestConsumer } from '@mmmq/test-support';
import { Injectable, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessageContext, MmmqConsumerModule, MMMQListener } from '../../src';
import { waitFor } from '../support/wait-for';

const MESSAGES = 300;
const DEADLINE_MS = 60_000;

@Injectable()
class Billing {
  readonly seen: number[] = [];

  @MMMQListener('order.*', { consumerId: 'billing' })
  onOrder(content: { n: number }, context: MessageContext): void {
    expect(context.redelivered).toBe(false);
    this.seen.push(content.n);
  }
}

interface Fetched {
  content: { n: number };
  lease: string;
}

describe('an application that embeds the broker, with remote consumers beside its in-process listener', () => {
  let rootDir: string;
  let app: INestApplication;
  let url: string;
  const pushHost = new TestConsumer();
  const sharingHost = new TestConsumer();

  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  };

  beforeAll(async () => {
    rootDir = await makeTempDir();
    await pushHost.start();
    await sharingHost.start();
    @Module({
      imports: [MmmqBrokerModule.forRoot({ persistence: { rootDir } }), MmmqConsumerModule.forRoot(), MmmqProducerModule.forRoot()],
      providers: [Billing],
    })
    class ShopModule {}
    app = await NestFactory.create(ShopModule, { logger: false });
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
    await pushHost.stop();
    await sharingHost.stop();
    await removeTempDir(rootDir);
  });

  it(
    'delivers to an in-process listener, a push consumer and a pull consumer alike, and shares a consumer id between in process and push',
    async () => {
      expect((await api('POST', '/mmmq/dispatchers', { consumerId: 'audit', host: pushHost.url, pattern: 'order.*' })).status).toBe(201);
      expect((await api('POST', '/mmmq/dispatchers', { consumerId: 'reports', pattern: 'order.*' })).status).toBe(201);
      // A second member of the in-process listener's consumer id, in another process: the two share its messages. The
      // dispatcher exists (the in-process listener made it at bootstrap): the host joins it.
      expect((await api('POST', '/mmmq/dispatchers', { consumerId: 'billing', host: sharingHost.url, pattern: 'order.*' })).status).toBe(
        200,
      );

      const producer = app.get(Producer);
      for (let n = 0; n < MESSAGES; n++) await producer.produce('order.created', { n });

      const pulled: number[] = [];
      await waitFor(
        async () => {
          const fetched = await api('POST', '/mmmq/consumers/reports/fetch', { max: 100, waitMs: 0, member: 'reports-1' });
          const messages: Fetched[] = fetched.body.messages;
          if (messages.length > 0) {
            pulled.push(...messages.map((message) => message.content.n));
            expect((await api('POST', '/mmmq/consumers/reports/ack', { leases: messages.map((message) => message.lease) })).status).toBe(
              200,
            );
          }
          return pulled.length >= MESSAGES;
        },
        `${MESSAGES} pulled by reports`,
        DEADLINE_MS,
      );
      const billing = app.get(Billing);
      await waitFor(() => pushHost.received.length >= MESSAGES, `${MESSAGES} pushed to audit`, DEADLINE_MS);
      await waitFor(() => billing.seen.length + sharingHost.received.length >= MESSAGES, 'every billing message handled', DEADLINE_MS);

      const numbers = [...Array(MESSAGES).keys()];
      expect(pulled).toEqual(numbers);
      expect(pushHost.received.map((delivery) => (delivery.body.content as { n: number }).n)).toEqual(numbers);
      const shared = [...billing.seen, ...sharingHost.received.map((delivery) => (delivery.body.content as { n: number }).n)];
      expect(shared.sort((a, b) => a - b)).toEqual(numbers);
    },
    3 * DEADLINE_MS,
  );
});

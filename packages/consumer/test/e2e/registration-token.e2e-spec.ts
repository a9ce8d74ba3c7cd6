import { Injectable } from '@nestjs/common';
import { DispatcherRegistrationError, MmmqConsumerModule, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { ConsumerApp, freePort, startConsumer } from '../support/consumer-app';
import { waitFor } from '../support/wait-for';

const CONSUME = 'billing-consume-0123456789';
const ADMIN = 'ops-admin-token-0123456789';

@Injectable()
class InvoiceListener {
  readonly received: unknown[] = [];

  @MMMQListener('order.*')
  onOrder(content: unknown): void {
    this.received.push(content);
  }
}

describe('self-registration with a broker that requires tokens', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp | undefined;
  const start = async (token: string | undefined) => {
    const port = await freePort();
    return startConsumer(
      {
        imports: [
          MmmqConsumerModule.forRoot({
            app: 'billing',
            broker: broker.url,
            advertisedUrl: `http://127.0.0.1:${port}`,
            token,
            registration: { failFast: true, attempts: 3, backoffMs: 10 },
          }),
        ],
        providers: [InvoiceListener],
      },
      { port },
    );
  };

  beforeAll(async () => {
    broker = await startBroker({
      auth: {
        tokens: [
          { token: CONSUME, roles: ['consume'], name: 'billing' },
          { token: ADMIN, roles: ['admin'], name: 'ops' },
        ],
      },
    });
  });
  afterAll(async () => {
    await consumer?.close();
    await broker.close();
  });

  it('fails bootstrap at once without a token, saying which option is missing', async () => {
    const starting = start(undefined);
    await expect(starting).rejects.toBeInstanceOf(DispatcherRegistrationError);
    await expect(starting).rejects.toThrow(
      /\(attempt 1 of 3\): .*answered HTTP 401: This broker requires a token.* \(the consumer option token\)/,
    );
  });

  it('registers with its token, and the listener then receives what is published', async () => {
    consumer = await start(CONSUME);
    const { body } = await broker.request('GET', '/mmmq/dispatchers');
    expect(body).toEqual([expect.objectContaining({ consumerId: 'billing.invoice-listener.on-order', pattern: 'order.*' })]);
    await broker.publish('order.created', { n: 1 });
    await waitFor(() => consumer!.app.get(InvoiceListener).received.length === 1, 'the delivery');
  });
});

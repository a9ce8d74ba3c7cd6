import { Injectable } from '@nestjs/common';
import { DispatcherRegistrationError, MmmqConsumerHealthIndicator, MmmqConsumerModule, MMMQListener } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { CapturedLogger } from '../support/captured-logger';
import { ConsumerApp, freePort, startConsumer } from '../support/consumer-app';
import { waitFor } from '../support/wait-for';

@Injectable()
class OrderListener {
  @MMMQListener('order.*')
  onOrder(): void {}
}

const CONSUMER_ID = 'billing.order-listener.on-order';

describe('self-registration without a reachable broker', () => {
  let consumer: ConsumerApp | undefined;
  let broker: BrokerApp | undefined;
  afterEach(async () => {
    await consumer?.close();
    consumer = undefined;
    await broker?.close();
    broker = undefined;
  });

  it('with registration.failFast: retries with backoff, then fails bootstrap with an error that names the listener and the broker', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const module = MmmqConsumerModule.forRoot({
      app: 'billing',
      broker: nobody,
      advertisedUrl: `http://127.0.0.1:${await freePort()}`,
      registration: { failFast: true, attempts: 3, backoffMs: 10 },
    });
    const starting = startConsumer({ imports: [module], providers: [OrderListener] });

    await expect(starting).rejects.toBeInstanceOf(DispatcherRegistrationError);
    await expect(starting).rejects.toThrow(
      `Could not register the dispatcher ${CONSUMER_ID} of OrderListener.onOrder with the broker at ${nobody} (attempt 3 of 3)`,
    );
  });

  it('by default: starts, reports down (what is pending and why), keeps retrying with one warning, and is up once the broker is', async () => {
    const brokerPort = await freePort();
    const logger = new CapturedLogger();
    const module = MmmqConsumerModule.forRoot({
      app: 'billing',
      broker: `http://127.0.0.1:${brokerPort}`,
      advertisedUrl: `http://127.0.0.1:${await freePort()}`,
      registration: { backoffMs: 10 },
    });
    consumer = await startConsumer({ imports: [module], providers: [OrderListener] }, { logger });
    const health = consumer.app.get(MmmqConsumerHealthIndicator);

    await waitFor(() => (health.check().pending[0]?.attempts ?? 0) >= 4, 'several failed registration tries');
    const down = await health.isHealthy('mmmq');
    expect(down).toEqual({
      mmmq: {
        status: 'down',
        registered: [],
        pending: [
          {
            consumerId: CONSUMER_ID,
            listener: 'OrderListener.onOrder',
            attempts: expect.any(Number),
            lastError: expect.stringMatching(/ECONNREFUSED/),
            retrying: true,
          },
        ],
        handlers: { running: 0, waiting: 0, longestRunningMs: 0, queueFullMs: 0 },
        message: expect.stringMatching(new RegExp(`^1 dispatcher\\(s\\) not registered with the broker yet \\(${CONSUMER_ID}: `)),
      },
    });
    // Once per outage, not once per try.
    expect(logger.lines.filter((line) => line.startsWith(`Could not register the dispatcher ${CONSUMER_ID}`))).toHaveLength(1);

    // Nest's Logger goes to the logger of the application created last: the broker's, from here on.
    broker = await startBroker({ port: brokerPort, logger });
    await waitFor(() => health.check().status === 'up', 'the consumer to be registered once the broker is up');
    expect(await health.isHealthy()).toEqual({
      'mmmq-consumer': {
        status: 'up',
        registered: [CONSUMER_ID],
        pending: [],
        handlers: { running: 0, waiting: 0, longestRunningMs: 0, queueFullMs: 0 },
      },
    });
    expect(logger.lines.some((line) => line.startsWith(`Reached the broker at http://127.0.0.1:${brokerPort} again after`))).toBe(true);
  });

  it('by default: stops retrying what the broker refuses for good (401), reports it down with the reason', async () => {
    broker = await startBroker({ auth: { tokens: [{ token: 'billing-consume-0123456789', roles: ['consume'], name: 'billing' }] } });
    const logger = new CapturedLogger();
    const module = MmmqConsumerModule.forRoot({
      app: 'billing',
      broker: broker.url,
      advertisedUrl: `http://127.0.0.1:${await freePort()}`,
      registration: { backoffMs: 10 },
    });
    consumer = await startConsumer({ imports: [module], providers: [OrderListener] }, { logger });
    const health = consumer.app.get(MmmqConsumerHealthIndicator);

    await waitFor(() => health.check().pending[0]?.retrying === false, 'the registration to give up');
    expect(health.check()).toMatchObject({
      status: 'down',
      pending: [{ consumerId: CONSUMER_ID, attempts: 1, lastError: expect.stringContaining('answered HTTP 401'), retrying: false }],
    });
    expect(logger.lines.filter((line) => line.includes('Retrying cannot help'))).toHaveLength(1);
  });
});

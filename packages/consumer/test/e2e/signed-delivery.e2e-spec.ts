import { Injectable } from '@nestjs/common';
import { SigningSecret } from '@mmmq/core';
import { MMMQListener, MmmqConsumerModule, MmmqConsumerOptions } from '../../src';
import { BrokerApp, startBroker } from '../support/broker-app';
import { CapturedLogger } from '../support/captured-logger';
import { ConsumerApp, freePort, startConsumer } from '../support/consumer-app';
import { registered } from '../support/registered-consumer';
import { waitFor } from '../support/wait-for';

@Injectable()
class OrderListener {
  readonly received: unknown[] = [];

  @MMMQListener('order.*')
  onOrder(order: unknown): void {
    this.received.push(order);
  }
}

const CONSUMER_ID = 'billing.order-listener.on-order';
const SECRET = SigningSecret.generate();
const WRONG_SECRET = SigningSecret.generate();

/** A consumer application verifying pushes with `SECRET` (Nest's rawBody on, so the bytes are there to check), once registered. */
async function startSigningConsumer(port: number, options: MmmqConsumerOptions, logger: CapturedLogger): Promise<ConsumerApp> {
  const module = MmmqConsumerModule.forRoot({
    app: 'billing',
    signingSecrets: [SECRET.reveal()],
    registration: { backoffMs: 50 },
    ...options,
  });
  const consumer = await startConsumer({ imports: [module], providers: [OrderListener] }, { port, rawBody: true, logger });
  await registered(consumer.app);
  return consumer;
}

describe('signed pushes from a real broker to a consumer application', () => {
  let broker: BrokerApp;
  let consumer: ConsumerApp | undefined;
  // Nest's Logger goes to the logger of the application created last, so both applications share one.
  let log: CapturedLogger;

  beforeEach(() => (log = new CapturedLogger()));
  afterEach(async () => {
    await consumer?.close();
    consumer = undefined;
    await broker.close();
    for (const line of log.lines) expect(line).not.toContain(SECRET.reveal().slice(6));
  });

  it('registers its secret, and handles the pushes it verifies', async () => {
    broker = await startBroker({ logger: log });
    const port = await freePort();
    consumer = await startSigningConsumer(port, { broker: broker.url, advertisedUrl: `http://127.0.0.1:${port}` }, log);

    const { body } = await broker.request('GET', `/mmmq/dispatchers/${CONSUMER_ID}`);
    expect(body).toMatchObject({ consumerId: CONSUMER_ID, signed: true });
    expect(body.signingSecret).toBeUndefined();
    for (const n of [1, 2, 3]) await broker.publish('order.created', { n });
    await waitFor(() => consumer!.app.get(OrderListener).received.length === 3, 'three verified pushes');
    expect(consumer.app.get(OrderListener).received).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(log.lines).toContainEqual(expect.stringContaining(`Dispatcher ${CONSUMER_ID} registered (signed pushes)`));
  });

  it('refuses pushes signed with another secret (401); the broker shows it, logs it once, and delivers once it registers again', async () => {
    // The longest backoff stays at its default (60 s): only registering again can make the retry come sooner.
    broker = await startBroker({ logger: log, delivery: { backoff: { initialMs: 50 } } });
    const port = await freePort();
    consumer = await startSigningConsumer(port, {}, log);
    // Someone registered the dispatcher with the wrong secret.
    const registered = await broker.request('POST', '/mmmq/dispatchers', {
      consumerId: CONSUMER_ID,
      host: `http://127.0.0.1:${port}`,
      pattern: 'order.*',
      signingSecret: WRONG_SECRET.reveal(),
    });
    expect(registered.status).toBe(201);
    await broker.publish('order.created', { n: 1 });

    await waitFor(
      async () => (await broker.subscription(CONSUMER_ID, 'order.created'))?.state === 'unauthorized',
      'the unauthorized state',
    );
    const refused = await broker.subscription(CONSUMER_ID, 'order.created');
    expect(refused).toMatchObject({ lag: 1, stats: { unauthorized: 1, delivered: 0 } });
    expect(refused.stats.lastError).toContain('HTTP 401: No v1 signature in webhook-signature matches a known signing secret');
    expect(consumer.app.get(OrderListener).received).toEqual([]);
    const unauthorizedErrors = () => log.lines.filter((line) => line.includes('refuses the pushes as unauthorized'));
    expect(unauthorizedErrors()).toHaveLength(1);

    // The application restarts with self-registration on: it sends its own secret, and delivery resumes at once.
    await consumer.close();
    consumer = await startSigningConsumer(port, { broker: broker.url, advertisedUrl: `http://127.0.0.1:${port}` }, log);
    await waitFor(() => consumer!.app.get(OrderListener).received.length === 1, 'delivery after registering again', 15_000);
    expect(consumer.app.get(OrderListener).received).toEqual([{ n: 1 }]);
    await broker.caughtUp(CONSUMER_ID, 'order.created');
    expect(await broker.subscription(CONSUMER_ID, 'order.created')).toMatchObject({ state: 'active' });
    expect(unauthorizedErrors()).toHaveLength(1);
  });
});

import net from 'node:net';
import { DeadLetterHeaders } from '../../src/dispatch/dead-letter-writer';
import { decodeEnvelope } from '../../src/format/message-envelope';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { TestConsumer } from '../support/test-consumer';
import { FAST_BACKOFF, publishAll } from './delivery.fixture';
import { PullClient, waitUntil } from './pull.fixture';

/** A port nothing listens on: connections are refused. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('bounded redelivery of pushes', () => {
  let broker: BrokerApp;
  let consumer: TestConsumer;

  beforeEach(() => {
    consumer = new TestConsumer();
  });
  afterEach(async () => {
    await broker.close();
    await consumer.stop().catch(() => undefined);
  });

  const register = async (host: string, maxDeliveries: number) => {
    const response = await broker.request('POST', '/mmmq/dispatchers', { consumerId: 'billing', host, pattern: 'order.*', maxDeliveries });
    expect(response.status).toBe(201);
  };

  const deadLetter = async () => {
    await waitUntil(
      () => broker.topics.get('__dlq.billing') !== undefined && broker.topics.get('__dlq.billing')!.tailOffset > 0,
      'the dead letter',
    );
    return decodeEnvelope((await broker.topics.get('__dlq.billing')!.peek(0))!);
  };

  it.each([
    ['HTTP 500', () => ({ status: 500 }), /^HTTP 500$/, {}],
    ['a timeout', () => 'hang' as const, /^no reply within 300 ms$/, { timeoutMs: 300 }],
  ])(
    'dead-letters a message answered with %s after maxDeliveries, with the history, and the next one flows',
    async (_, failing, outcome, delivery) => {
      broker = await startBroker({ delivery: { ...FAST_BACKOFF, ...delivery } });
      await consumer.start();
      consumer.reply = (pushed) => ((pushed.body.content as { n: number }).n === 0 ? failing() : 'ACK');
      await register(consumer.url, 3);
      await publishAll(broker, 'order.created', [{ n: 0 }, { n: 1 }]);
      const letter = await deadLetter();
      expect(letter.headers).toMatchObject({ [DeadLetterHeaders.REASON]: 'MAX_DELIVERIES', [DeadLetterHeaders.ATTEMPTS]: 3 });
      const history = JSON.parse(String(letter.headers[DeadLetterHeaders.DELIVERIES]));
      expect(history).toHaveLength(3);
      for (const attempt of history) expect(attempt.outcome).toMatch(outcome);
      await consumer.waitFor(() => consumer.received.some((pushed) => (pushed.body.content as { n: number }).n === 1));
      const first = consumer.received.filter((pushed) => (pushed.body.content as { n: number }).n === 0);
      expect(first.map((pushed) => [pushed.body.deliveryCount, pushed.body.redelivered])).toEqual([
        [1, false],
        [2, true],
        [3, true],
      ]);
    },
  );

  it('does not count refused connections: a message never reached is neither redelivered nor dead-lettered', async () => {
    broker = await startBroker({ delivery: FAST_BACKOFF });
    const port = await closedPort();
    await register(`http://127.0.0.1:${port}`, 2);
    await publishAll(broker, 'order.created', [{ n: 0 }]);
    await waitUntil(async () => {
      const { body } = await broker.request('GET', '/mmmq/subscriptions');
      return body[0]?.stats.failures >= 4;
    }, 'four refused pushes');
    await consumer.start(port);
    await consumer.waitFor(() => consumer.received.length === 1);
    expect(consumer.received[0].body).toMatchObject({ deliveryCount: 1, redelivered: false });
    expect(broker.topics.get('__dlq.billing')).toBeUndefined();
  });

  it('does not count a 503 (the consumer did not take it: starting, shutting down, full): neither redelivered nor dead-lettered', async () => {
    broker = await startBroker({ delivery: FAST_BACKOFF });
    await consumer.start();
    let refusals = 0;
    consumer.reply = () => (++refusals <= 3 ? { status: 503, body: { acknowledgement: 'NACK', message: 'queue full' } } : 'ACK');
    await register(consumer.url, 2);
    await publishAll(broker, 'order.created', [{ n: 0 }]);
    await consumer.waitFor(() => consumer.received.length === 4);
    expect(consumer.received.map((pushed) => [pushed.body.deliveryCount, pushed.body.redelivered])).toEqual([
      [1, false],
      [1, false],
      [1, false],
      [1, false],
    ]);
    expect(broker.topics.get('__dlq.billing')).toBeUndefined();
  });
});

describe('leases and the wall clock', () => {
  let broker: BrokerApp;
  afterEach(() => broker.close());

  it('a jump of the wall clock by +1 h or -1 h during leases changes nothing: they run on the monotonic clock', async () => {
    broker = await startBroker();
    const puller = new PullClient(broker, 'clocks');
    await puller.register();
    await publishAll(broker, 'order.created', [{ n: 0 }, { n: 1 }]);
    await waitUntil(async () => (await broker.request('GET', '/mmmq/subscriptions')).body.length === 1, 'the subscription');
    const [first] = await puller.fetch({ ackTimeoutMs: 2000 });
    const realNow = Date.now.bind(Date);
    const jump = jest.spyOn(Date, 'now');
    try {
      jump.mockImplementation(() => realNow() + 3_600_000);
      const [second] = await puller.fetch({ ackTimeoutMs: 2000 });
      // An hour later by the wall clock, the first lease still holds: nothing is redelivered.
      expect(await puller.fetch()).toEqual([]);
      jump.mockImplementation(() => realNow() - 3_600_000);
      expect(await puller.fetch()).toEqual([]);
      expect(await puller.ack([first.lease, second.lease])).toEqual({ settled: 2, lost: [] });
    } finally {
      jump.mockRestore();
    }
    await publishAll(broker, 'order.created', [{ n: 2 }]);
    const [third] = await puller.fetch({ waitMs: 5000, ackTimeoutMs: 1000 });
    jest.spyOn(Date, 'now').mockImplementation(() => realNow() - 3_600_000);
    try {
      // An hour back by the wall clock, the lease still ends after its second.
      const [again] = await puller.fetch({ waitMs: 5000 });
      expect(again).toMatchObject({ offset: third.offset, deliveryCount: 2, redelivered: true });
    } finally {
      jest.restoreAllMocks();
    }
  });
});

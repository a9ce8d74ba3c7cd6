import { decodeEnvelope } from '../../src/format/message-envelope';
import { DeadLetterHeaders } from '../../src/dispatch/dead-letter-writer';
import { expectQuiet } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { publishAll, range } from './delivery.fixture';
import { PullClient, waitUntil } from './pull.fixture';

/** How many messages fetching again has returned so far (each call fetches once more). */
function fetchedAgain(consumer: PullClient): () => Promise<number> {
  let fetched = 0;
  return async () => (fetched += (await consumer.fetch()).length);
}

describe('the pull API', () => {
  let broker: BrokerApp;
  let consumer: PullClient;
  let id = 0;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(() => broker.close());
  beforeEach(async () => {
    consumer = new PullClient(broker, `puller-${++id}`);
  });

  /** Publishes to a topic of this test's own and registers the consumer for it only. */
  const setUp = async (count: number, settings: Record<string, unknown> = {}) => {
    const topic = `order.t${id}`;
    await consumer.register({ pattern: topic, ...settings });
    await publishAll(
      broker,
      topic,
      range(count).map((n) => ({ n })),
    );
    await subscribed(topic);
    return topic;
  };

  /** A new topic's subscriptions start right after its first publish is acknowledged. */
  const subscribed = (topic: string) =>
    waitUntil(async () => {
      const { body } = await broker.request('GET', '/mmmq/subscriptions');
      return body.some((row: { topic: string; consumerId: string }) => row.topic === topic && row.consumerId === consumer.consumerId);
    }, `the subscription to ${topic}`);

  const deadLetters = async (consumerId: string) => {
    const queue = broker.topics.get(`__dlq.${consumerId}`);
    if (!queue) return [];
    const entries = await queue.peekMany(0, 100);
    return entries.map((entry) => decodeEnvelope(entry as Buffer));
  };

  it('fetches with leases, answers an empty fetch at once, and settles an ack once: a second ack of the lease is lost', async () => {
    await consumer.register({ pattern: `order.t${id}` });
    expect(await consumer.fetch()).toEqual([]);
    await publishAll(broker, `order.t${id}`, [{ n: 0 }, { n: 1 }]);
    await subscribed(`order.t${id}`);
    const fetched = await consumer.fetch({ max: 10 });
    expect(fetched.map((message) => [message.content, message.offset, message.deliveryCount, message.redelivered])).toEqual([
      [{ n: 0 }, 0, 1, false],
      [{ n: 1 }, 1, 1, false],
    ]);
    expect(fetched[0].lease).toEqual(expect.any(String));
    expect(await consumer.ack(fetched.map((message) => message.lease))).toEqual({ settled: 2, lost: [] });
    expect(await consumer.ack([fetched[0].lease])).toEqual({ settled: 0, lost: [fetched[0].lease] });
    expect(await consumer.fetch()).toEqual([]);
  });

  it('long-polls: a waiting fetch answers as soon as a message is published', async () => {
    await consumer.register({ pattern: `order.t${id}` });
    const started = Date.now();
    const waiting = consumer.fetch({ waitMs: 20_000 });
    setTimeout(() => void publishAll(broker, `order.t${id}`, [{ n: 7 }]), 300);
    const [message] = await waiting;
    expect(message.content).toEqual({ n: 7 });
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('redelivers a message whose lease expired, counting it, and dead-letters it with its history after maxDeliveries', async () => {
    const topic = await setUp(1, { maxDeliveries: 2 });
    const [first] = await consumer.fetch({ ackTimeoutMs: 1000 });
    expect(first).toMatchObject({ offset: 0, deliveryCount: 1, redelivered: false });
    const [again] = await consumer.fetch({ waitMs: 5000, ackTimeoutMs: 1000 });
    expect(again).toMatchObject({ offset: 0, deliveryCount: 2, redelivered: true });
    expect(await consumer.ack([first.lease])).toEqual({ settled: 0, lost: [first.lease] });
    // The second lease expires too: two deliveries are the limit, so it is dead-lettered and the next message goes out.
    await publishAll(broker, topic, [{ n: 1 }]);
    const [next] = await consumer.fetch({ waitMs: 5000 });
    expect(next).toMatchObject({ offset: 1, deliveryCount: 1 });
    await waitUntil(async () => (await deadLetters(consumer.consumerId)).length === 1, 'the dead letter');
    const [letter] = await deadLetters(consumer.consumerId);
    expect(letter.headers).toMatchObject({
      [DeadLetterHeaders.ORIGINAL_TOPIC]: topic,
      [DeadLetterHeaders.REASON]: 'MAX_DELIVERIES',
      [DeadLetterHeaders.ATTEMPTS]: 2,
    });
    const history = JSON.parse(String(letter.headers[DeadLetterHeaders.DELIVERIES]));
    expect(history.map((attempt: { outcome: string }) => attempt.outcome)).toEqual(['LEASE_EXPIRED', 'LEASE_EXPIRED']);
  });

  it('NACKs: with a delay the message stays away until it is over; the fourth NACK dead-letters it', async () => {
    await setUp(1);
    let [message] = await consumer.fetch();
    await consumer.nack([message.lease], 700);
    expect(await consumer.fetch()).toEqual([]);
    const started = Date.now();
    [message] = await consumer.fetch({ waitMs: 5000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(message).toMatchObject({ deliveryCount: 2, redelivered: true });
    for (let attempt = 3; attempt <= 4; attempt++) {
      await consumer.nack([message.lease]);
      [message] = await consumer.fetch({ waitMs: 5000 });
      expect(message.deliveryCount).toBe(attempt);
    }
    expect(await consumer.nack([message.lease])).toEqual({ settled: 1, lost: [] });
    await waitUntil(async () => (await deadLetters(consumer.consumerId)).length === 1, 'the dead letter');
    expect((await deadLetters(consumer.consumerId))[0].headers).toMatchObject({
      [DeadLetterHeaders.REASON]: 'NACK',
      [DeadLetterHeaders.ATTEMPTS]: 4,
    });
    expect(await consumer.fetch()).toEqual([]);
  });

  it('terminate dead-letters at once and answers once the dead letter is durable', async () => {
    await setUp(2);
    const [message] = await consumer.fetch();
    expect(await consumer.terminate([message.lease], 'cannot parse the order')).toEqual({ settled: 1, lost: [] });
    const [letter] = await deadLetters(consumer.consumerId);
    expect(letter.headers).toMatchObject({
      [DeadLetterHeaders.REASON]: 'TERMINATED',
      [DeadLetterHeaders.LAST_ERROR]: 'cannot parse the order',
    });
    expect((await consumer.fetch())[0].offset).toBe(1);
  });

  it('extend keeps a lease past its first deadline; acks by offset and by id settle too', async () => {
    await setUp(3);
    const fetched = await consumer.fetch({ max: 3, ackTimeoutMs: 1000 });
    expect(
      await consumer.extend(
        fetched.map((message) => message.lease),
        10_000,
      ),
    ).toEqual({ extended: 3, lost: [] });
    // Past the first deadline (1 s), polling: a lease that lapsed would be fetched again at once.
    await expectQuiet(fetchedAgain(consumer), { forMs: 1500, pollMs: 100, message: 'no redelivery of an extended lease' });
    const [byLease, byOffset, byId] = fetched;
    expect(await consumer.ack([byLease.lease, { topic: byOffset.topic, offset: byOffset.offset }, { id: byId.id }])).toEqual({
      settled: 3,
      lost: [],
    });
  });

  it("recover gives a member's messages back at once, marked redelivered", async () => {
    await setUp(2);
    await consumer.fetch({ max: 2, member: 'worker-1' });
    expect(await consumer.recover('worker-1')).toEqual({ released: 2 });
    const again = await consumer.fetch({ max: 2, member: 'worker-2' });
    expect(again.map((message) => [message.offset, message.redelivered, message.deliveryCount])).toEqual([
      [0, true, 2],
      [1, true, 2],
    ]);
  });

  it('autoAck settles on send: nothing fetched that way is ever delivered again', async () => {
    await setUp(3);
    expect((await consumer.fetch({ max: 3, autoAck: true, ackTimeoutMs: 1000 })).map((message) => message.offset)).toEqual([0, 1, 2]);
    await expectQuiet(fetchedAgain(consumer), { forMs: 1300, pollMs: 100, message: 'no redelivery of auto-acknowledged messages' });
  });

  it('exclusive: one member receives; when it goes silent for a lease period the next takes over, in order', async () => {
    await setUp(4, { exclusive: true, ackTimeoutMs: 1000 });
    const first = await consumer.fetch({ max: 2, member: 'a' });
    expect(first.map((message) => message.offset)).toEqual([0, 1]);
    await consumer.ack([first[0].lease]);
    expect(await consumer.fetch({ member: 'b' })).toEqual([]);
    // a dies holding offset 1; b waits as the backup and then receives from offset 1, in order.
    const taken = await consumer.fetch({ max: 3, member: 'b', waitMs: 1500 });
    const rest = taken.length > 0 ? taken : await consumer.fetch({ max: 3, member: 'b', waitMs: 3000 });
    expect(rest.map((message) => [message.offset, message.redelivered])).toEqual([
      [1, true],
      [2, false],
      [3, false],
    ]);
    expect(await consumer.fetch({ member: 'a' })).toEqual([]);
  });

  it('exclusive: the member taking over waits for what the silent one still holds, then receives in order', async () => {
    await setUp(4, { exclusive: true, ackTimeoutMs: 1000 });
    // a takes offset 0 with a lease longer than the lease period after which b takes over.
    const held = await consumer.fetch({ max: 1, member: 'a', ackTimeoutMs: 4000 });
    expect(held.map((message) => message.offset)).toEqual([0]);
    expect(await consumer.fetch({ member: 'b' })).toEqual([]);
    // b becomes the active member after a's lease period (1 s), but offset 0 is a's until its own lease ends (4 s).
    const received: Array<[number, boolean]> = [];
    while (received.length < 4) {
      const taken = await consumer.fetch({ max: 4, member: 'b', waitMs: 1000 });
      received.push(...taken.map((message): [number, boolean] => [message.offset, message.redelivered]));
      if (taken.length > 0) await consumer.ack(taken.map((message) => message.lease));
    }
    expect(received).toEqual([
      [0, true],
      [1, false],
      [2, false],
      [3, false],
    ]);
  });

  it('fetches from every topic of a dispatcher with several patterns, each topic once', async () => {
    const patterns = [`order.m${id}.*`, `invoice.m${id}`, `order.m${id}.**`];
    const created = await broker.request('POST', '/mmmq/dispatchers', { consumerId: consumer.consumerId, patterns });
    expect(created).toMatchObject({ status: 201, body: { patterns } });
    await publishAll(broker, `order.m${id}.eu`, [{ n: 0 }]);
    await publishAll(broker, `invoice.m${id}`, [{ n: 1 }]);
    await publishAll(broker, `refund.m${id}`, [{ n: 2 }]);
    const fetched: Array<[string, unknown]> = [];
    while (fetched.length < 2) {
      for (const message of await consumer.fetch({ max: 10, waitMs: 5000 })) fetched.push([message.topic, message.content]);
    }
    expect(fetched.sort()).toEqual([
      [`invoice.m${id}`, { n: 1 }],
      [`order.m${id}.eu`, { n: 0 }],
    ]);
    expect(await consumer.fetch()).toEqual([]);
  });

  it('refuses bad requests with 400 naming the field, and an unknown consumer with 404', async () => {
    await consumer.register({ pattern: `order.t${id}` });
    const call = (action: string, body: unknown) => broker.request('POST', `/mmmq/consumers/${consumer.consumerId}/${action}`, body);
    for (const [action, body, field] of [
      ['fetch', { max: 0 }, 'max'],
      ['fetch', { waitMs: 60_001 }, 'waitMs'],
      ['fetch', { ackTimeoutMs: 5 }, 'ackTimeoutMs'],
      ['fetch', { member: 'has space' }, 'member'],
      ['fetch', { other: 1 }, 'other'],
      ['ack', {}, 'leases'],
      ['ack', { leases: [42] }, 'leases\\[0\\]'],
      ['nack', { leases: ['x:1:1'], delayMs: -1 }, 'delayMs'],
      ['recover', {}, 'member'],
    ] as Array<[string, unknown, string]>) {
      const response = await call(action, body);
      expect([action, response.status]).toEqual([action, 400]);
      expect(response.body.message).toMatch(new RegExp(field));
    }
    expect((await broker.request('POST', '/mmmq/consumers/nobody/fetch', {})).status).toBe(404);
  });
});

import { Topic } from '@mmmq/core';
import { INestApplication, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { LeaseLostError, MessageContext, MmmqConsumerModule, MMMQListener } from '@mmmq/consumer';
import { expectQuiet, freePort, startBroker as startTestBroker } from '@mmmq/test-support';
import { encodeEnvelope } from '../../src/format/message-envelope';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { PullClient, waitUntil } from '../delivery/pull.fixture';

interface Order {
  n: number;
}

/** What the listener does with each delivery; set by each test. */
let behaviour: (order: Order, context: MessageContext) => Promise<unknown> = async () => undefined;
const attempts: Array<{ n: number; deliveryCount: number }> = [];

/** Turns an order into its invoice and an audit line, atomically with settling the order. */
const invoiceIt = (order: Order, context: MessageContext) =>
  context.transaction(async (tx) => {
    tx.produce(`invoice.${context.consumerId.split('.')[1]}`, { n: order.n }, { headers: { 'source-offset': context.offset } });
    tx.produce('audit.log', { n: order.n, by: context.consumerId });
  });

@Injectable()
class Shop {
  @MMMQListener({ pattern: 'order.pull', consumerId: 'shop.pull' })
  onPulled(order: Order, context: MessageContext): Promise<unknown> {
    attempts.push({ n: order.n, deliveryCount: context.deliveryCount });
    return behaviour(order, context);
  }
}

@Injectable()
class PushShop {
  @MMMQListener({ pattern: 'order.push', consumerId: 'shop.push' })
  onPushed(order: Order, context: MessageContext): Promise<unknown> {
    attempts.push({ n: order.n, deliveryCount: context.deliveryCount });
    return behaviour(order, context);
  }
}

/** A real consumer application (MmmqConsumerModule) against the real broker, pulling or pushed to. */
async function startConsumer(broker: BrokerApp, delivery: 'pull' | 'push', ackTimeoutMs?: number): Promise<INestApplication> {
  const port = await freePort();
  const consumer = MmmqConsumerModule.forRoot({
    app: 'shop',
    broker: broker.url,
    delivery,
    ...(delivery === 'pull'
      ? // A test that gives a lease wants it to run out while the handler works: nothing extends it.
        { pull: { waitMs: 200, ackTimeoutMs, ...(ackTimeoutMs === undefined ? {} : { maxLeaseExtensionMs: 0 }) } }
      : { advertisedUrl: `http://127.0.0.1:${port}`, deliveryBatchSize: 1 }),
  });
  @Module({ imports: [consumer], providers: [delivery === 'pull' ? Shop : PushShop] })
  class ShopModule {}
  const app = await NestFactory.create(ShopModule, { bodyParser: false, abortOnError: false });
  if (delivery === 'push') await app.listen(port, '127.0.0.1');
  else await app.init();
  return app;
}

const contentsOf = async (broker: BrokerApp, topic: string) =>
  broker.topics.get(topic) ? (await broker.stored(topic)).map(({ content }) => JSON.parse(content)) : [];

describe('transacted consumption: a handler settles its input and publishes its outputs atomically', () => {
  let broker: BrokerApp;
  let consumer: INestApplication | undefined;

  beforeEach(async () => {
    attempts.length = 0;
    behaviour = invoiceIt;
    broker = await startBroker();
  });
  afterEach(async () => {
    await consumer?.close();
    consumer = undefined;
    await broker.close();
  });

  for (const delivery of ['pull', 'push'] as const) {
    it(`${delivery}: the outputs become visible and the input settled, and the consumer does not settle it again`, async () => {
      await broker.publishAll(
        `order.${delivery}`,
        [1, 2, 3, 4, 5].map((n) => ({ n })),
      );
      consumer = await startConsumer(broker, delivery);
      await broker.caughtUp(`shop.${delivery}`, `order.${delivery}`);
      expect(await contentsOf(broker, `invoice.${delivery}`)).toEqual([1, 2, 3, 4, 5].map((n) => ({ n })));
      expect((await broker.stored(`invoice.${delivery}`)).map(({ headers }) => headers['source-offset'])).toEqual([0, 1, 2, 3, 4]);
      expect(await contentsOf(broker, 'audit.log')).toEqual([1, 2, 3, 4, 5].map((n) => ({ n, by: `shop.${delivery}` })));
      const { stats } = await broker.subscription(`shop.${delivery}`, `order.${delivery}`);
      expect(stats).toMatchObject({ transacted: 5, delivered: 5, nacked: 0, redelivered: 0 });
    });

    it(`${delivery}: a handler that throws inside its transaction publishes nothing, and the input is redelivered`, async () => {
      behaviour = async (order, context) =>
        context.transaction(async (tx) => {
          tx.produce('invoice.failing', { n: order.n, attempt: context.deliveryCount });
          if (order.n === 2 && context.deliveryCount === 1) throw new Error('the invoice service is down');
        });
      await broker.publishAll(
        `order.${delivery}`,
        [1, 2, 3].map((n) => ({ n })),
      );
      consumer = await startConsumer(broker, delivery);
      await broker.caughtUp(`shop.${delivery}`, `order.${delivery}`);
      expect(attempts.filter(({ n }) => n === 2)).toEqual([
        { n: 2, deliveryCount: 1 },
        { n: 2, deliveryCount: 2 },
      ]);
      const invoices = await contentsOf(broker, 'invoice.failing');
      expect(invoices).toHaveLength(3);
      expect(invoices).toEqual(
        expect.arrayContaining([
          { n: 1, attempt: 1 },
          { n: 2, attempt: 2 },
          { n: 3, attempt: 1 },
        ]),
      );
      expect((await broker.subscription(`shop.${delivery}`, `order.${delivery}`)).stats).toMatchObject({ transacted: 3, nacked: 1 });
    });
  }

  it('a transaction whose lease expired meanwhile is refused with LeaseLostError and publishes nothing', async () => {
    let lost: unknown;
    const expired = async () => ((await broker.subscription('shop.pull', 'order.pull'))?.stats.expired ?? 0) > 0;
    behaviour = async (order, context) => {
      if (context.deliveryCount === 1) {
        // The lease ends while the handler works: its transaction names a stale lease.
        await waitUntil(expired, 'the lease to expire');
        try {
          await invoiceIt(order, context);
        } catch (error) {
          lost = error;
          throw error;
        }
        return;
      }
      return invoiceIt(order, context);
    };
    await broker.publish('order.pull', { n: 7 });
    consumer = await startConsumer(broker, 'pull', 1000);
    await waitUntil(() => lost !== undefined, 'the stale transaction to be refused');
    await broker.caughtUp('shop.pull', 'order.pull');
    expect(attempts).toEqual([
      { n: 7, deliveryCount: 1 },
      { n: 7, deliveryCount: 2 },
    ]);
    expect(lost).toBeInstanceOf(LeaseLostError);
    expect(await contentsOf(broker, 'invoice.pull')).toEqual([{ n: 7 }]);
    expect(await contentsOf(broker, 'audit.log')).toEqual([{ n: 7, by: 'shop.pull' }]);
  });
});

describe('POST /mmmq/transactions (the wire API)', () => {
  let broker: BrokerApp;
  let puller: PullClient;
  let id = 0;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(() => broker.close());

  /** A pull consumer of its own topic holding `count` fetched messages. */
  const fetchOwn = async (count: number, settings: Record<string, unknown> = {}) => {
    const topic = `order.w${++id}`;
    puller = new PullClient(broker, `wire-${id}`);
    await puller.register({ pattern: topic, ...settings });
    await broker.publishAll(
      topic,
      Array.from({ length: count }, (_, n) => ({ n })),
    );
    await waitUntil(async () => (await broker.subscription(puller.consumerId, topic)) !== undefined, 'the subscription');
    const fetched = await puller.fetch({ max: count });
    expect(fetched).toHaveLength(count);
    return { topic, fetched };
  };
  const transact = (body: unknown) => broker.request('POST', '/mmmq/transactions', body);

  it('answers the outputs ACKs once durable, settles the inputs, and a second transaction of the same lease gets 409', async () => {
    const { topic, fetched } = await fetchOwn(2);
    const body = {
      consumerId: puller.consumerId,
      settle: fetched.map(({ lease }) => lease),
      messages: [
        { topic: `out.w${id}`, content: { sum: 1 }, id: 'out-1' },
        { topic: `other.w${id}`, content: 'text' },
      ],
    };
    const answer = await transact(body);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      acknowledgement: 'ACK',
      settled: 2,
      messages: [
        { id: 'out-1', topic: `out.w${id}`, offset: 0, deliveryMode: 'persistent' },
        { id: expect.any(String), topic: `other.w${id}`, offset: 0, deliveryMode: 'persistent' },
      ],
    });
    expect(await broker.subscription(puller.consumerId, topic)).toMatchObject({ position: 2, leased: 0 });
    expect(await puller.ack(fetched.map(({ lease }) => lease))).toEqual({ settled: 0, lost: fetched.map(({ lease }) => lease) });
    const again = await transact(body);
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/no longer held/);
    expect(await contentsOf(broker, `out.w${id}`)).toEqual([{ sum: 1 }]);
  });

  it('refuses a lease that was NACKed or redelivered with 409 and publishes nothing; the current lease commits', async () => {
    const { fetched } = await fetchOwn(1, { ackTimeoutMs: 1000 });
    const [first] = fetched;
    await puller.nack([first.lease]);
    const [second] = await puller.fetch();
    expect(second.deliveryCount).toBe(2);
    const stale = await transact({ consumerId: puller.consumerId, settle: [first.lease], messages: [{ topic: `out.w${id}`, content: 1 }] });
    expect(stale.status).toBe(409);
    expect(broker.topics.get(`out.w${id}`)).toBeUndefined();
    const current = await transact({
      consumerId: puller.consumerId,
      settle: [{ lease: second.lease }],
      messages: [{ topic: `out.w${id}`, content: 2 }],
    });
    expect(current.status).toBe(200);
    expect(await contentsOf(broker, `out.w${id}`)).toEqual([2]);
  });

  it('does not redeliver the input of a committed transaction when its lease would have ended', async () => {
    const { topic, fetched } = await fetchOwn(1, { ackTimeoutMs: 1000 });
    const answer = await transact({ consumerId: puller.consumerId, settle: [fetched[0].lease], messages: [] });
    expect(answer.body).toEqual({ acknowledgement: 'ACK', settled: 1, messages: [] });
    await expectQuiet(async () => (await puller.fetch()).length, { forMs: 1500, message: 'no redelivery of a settled input' });
    expect((await broker.subscription(puller.consumerId, topic)).stats).toMatchObject({ transacted: 1, expired: 0 });
  });

  it('answers 400 for a malformed transaction and changes nothing', async () => {
    const { fetched } = await fetchOwn(1);
    const lease = fetched[0].lease;
    const cases: Array<[unknown, RegExp]> = [
      [{ consumerId: puller.consumerId, messages: [] }, /settle must be an array/],
      [{ consumerId: puller.consumerId, settle: ['not-a-lease'] }, /settle\[0\] must be a lease token/],
      [{ consumerId: puller.consumerId, settle: [lease, lease] }, /one message twice/],
      [{ consumerId: puller.consumerId, settle: [lease, 'order.other:0:1'] }, /must come from one topic/],
      [{ consumerId: puller.consumerId, settle: [{ lease, offset: 99 }] }, /must be those of its lease/],
      [{ consumerId: puller.consumerId, settle: [lease], messages: [{ content: 1 }] }, /messages\[0\]: .*topic/],
      [{ consumerId: puller.consumerId, settle: [lease], extra: true }, /unknown field/],
    ];
    for (const [body, message] of cases) {
      const answer = await transact(body);
      expect([answer.status, answer.body.message]).toEqual([400, expect.stringMatching(message)]);
    }
    expect(await puller.ack([lease])).toEqual({ settled: 1, lost: [] });
  });

  it('answers 404 for an unknown consumer', async () => {
    const answer = await transact({ consumerId: 'nobody-here', settle: ['order.x:0:1'] });
    expect(answer.status).toBe(404);
  });
});

describe('POST /mmmq/transactions on a broker with tokens', () => {
  const ADMIN = 'admin-token-0123456789abcd';
  const CONSUMER = 'consumer-token-0123456789';
  const WORKER = 'worker-token-0123456789abc';
  let broker: BrokerApp;

  beforeAll(async () => {
    const auth = {
      tokens: [
        { token: ADMIN, roles: ['admin' as const], name: 'ops' },
        { token: CONSUMER, roles: ['consume' as const], name: 'reader' },
        { token: WORKER, roles: ['consume' as const, 'publish' as const], topics: ['invoice.*'], name: 'invoicer' },
      ],
    };
    broker = await startTestBroker({ auth }, { token: ADMIN });
  });
  afterAll(() => broker.close());

  const transact = async (token: string, body: unknown) => {
    const response = await fetch(`${broker.url}/mmmq/transactions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { message?: string } };
  };

  it('needs the consume and publish roles, and the publish topics of every output; a refusal changes nothing', async () => {
    const puller = new PullClient(broker, 'invoicer');
    await puller.register({ pattern: 'order.auth' });
    await broker.publish('order.auth', { n: 1 });
    await waitUntil(async () => (await broker.subscription('invoicer', 'order.auth')) !== undefined, 'the subscription');
    const [input] = await puller.fetch();
    const body = (topic: string) => ({ consumerId: 'invoicer', settle: [input.lease], messages: [{ topic, content: 1 }] });
    const readerOnly = await transact(CONSUMER, body('invoice.auth'));
    expect([readerOnly.status, readerOnly.body.message]).toEqual([403, expect.stringMatching(/lacks the publish role/)]);
    const outsideTopics = await transact(WORKER, body('audit.auth'));
    expect([outsideTopics.status, outsideTopics.body.message]).toEqual([403, expect.stringMatching(/may not publish to audit.auth/)]);
    expect(broker.topics.get('invoice.auth')).toBeUndefined();
    expect((await transact(WORKER, body('invoice.auth'))).status).toBe(200);
    expect(await contentsOf(broker, 'invoice.auth')).toEqual([1]);
  });
});

describe('POST /mmmq/transactions while the disk guard refuses publishes', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    // More free space than any disk has: the guard refuses every publish from the first check on.
    broker = await startBroker({ persistence: { diskGuard: { minFreeBytes: Number.MAX_SAFE_INTEGER } } });
  });
  afterAll(() => broker.close());

  it('answers 503 with Retry-After and publishes nothing, keeping the lease; a transaction without outputs settles', async () => {
    const puller = new PullClient(broker, 'guarded');
    await puller.register({ pattern: 'order.guarded' });
    // Stored past the guard (as if published before the disk filled up).
    const queue = await broker.topics.getOrCreate(Topic.of('order.guarded'));
    await queue.offer(
      encodeEnvelope({ id: 'o-1', topic: 'order.guarded', publishedAt: Date.now(), headers: {}, content: Buffer.from('1') }),
    );
    let input: { lease: string } | undefined;
    await waitUntil(async () => {
      [input] = await puller.fetch({ max: 1, waitMs: 100 });
      return input !== undefined;
    }, 'the input');
    const refused = await broker.request('POST', '/mmmq/transactions', {
      consumerId: 'guarded',
      settle: [input!.lease],
      messages: [{ topic: 'invoice.guarded', content: 1 }],
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(broker.topics.get('invoice.guarded')).toBeUndefined();
    const settleOnly = await broker.request('POST', '/mmmq/transactions', { consumerId: 'guarded', settle: [input!.lease] });
    expect(settleOnly.body).toEqual({ acknowledgement: 'ACK', settled: 1, messages: [] });
  });
});

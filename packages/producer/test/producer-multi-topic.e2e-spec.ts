import { MessageRejectedError } from '../src';
import { BrokerApp, startBroker } from './support/broker-app';
import { ProducerApp, startProducer } from './support/producer-app';
import { nack, ScriptedBroker, startScriptedBroker } from './support/scripted-broker';

/**
 * Batches and transactions spanning topics, against the real broker over both transports: one request, one
 * commit, all of it stored or none. (They need the broker-wide journal's multi-topic commits; a broker that
 * commits per topic refuses such a batch with 400.)
 */
describe.each([
  ['HTTP', (broker: BrokerApp) => broker.url],
  ['the publish stream', (broker: BrokerApp) => broker.streamUrl],
])('Producer spanning topics over %s', (_transport, urlOf) => {
  let broker: BrokerApp;
  let app: ProducerApp;
  const contents = async (topic: string) => (await broker.stored(topic)).map((message) => message.content);

  beforeAll(async () => {
    broker = await startBroker({ http: { maxJsonDepth: 3, maxBatchMessages: 4 } });
    app = await startProducer({ broker: urlOf(broker), retryDelayMs: 1 });
  });

  afterAll(async () => {
    await app.close();
    await broker.close();
  });

  it('stores a batch spanning topics at each topic’s next offsets, byte for byte, in order', async () => {
    await app.producer.produce('orders', 'before');
    const published = await app.producer.produceBatch([
      { topic: 'orders', content: { n: 1 }, id: 'order-1' },
      { topic: 'invoices', content: { n: 2, note: 'grüße' }, headers: { late: true } },
      { topic: 'orders', content: [3] },
    ]);
    expect(published).toEqual([
      { id: 'order-1', topic: 'orders', offset: 1, deliveryMode: 'persistent' },
      { id: expect.any(String), topic: 'invoices', offset: 0, deliveryMode: 'persistent' },
      { id: expect.any(String), topic: 'orders', offset: 2, deliveryMode: 'persistent' },
    ]);
    expect(await contents('orders')).toEqual(['"before"', '{"n":1}', '[3]']);
    expect(await broker.stored('invoices')).toEqual([{ id: published[1].id, headers: { late: true }, content: '{"n":2,"note":"grüße"}' }]);
    expect((await broker.stored('orders')).slice(1).map((message) => message.id)).toEqual(['order-1', published[2].id]);
  });

  it('commits a transaction as one batch and resolves with the callback’s result and where each message landed', async () => {
    const { result, published } = await app.producer.transaction(async (tx) => {
      const orderId = tx.produce('payments', { paid: 10 });
      await new Promise<void>((resolve) => setImmediate(resolve));
      tx.produce({ topic: 'ledger', content: { orderId, amount: -10 }, id: `ledger-${orderId}` });
      return orderId;
    });
    expect(published).toEqual([
      { id: result, topic: 'payments', offset: 0, deliveryMode: 'persistent' },
      { id: `ledger-${result}`, topic: 'ledger', offset: 0, deliveryMode: 'persistent' },
    ]);
    expect(await contents('payments')).toEqual(['{"paid":10}']);
    expect(await contents('ledger')).toEqual([`{"orderId":"${result}","amount":-10}`]);
  });

  it('stores nothing of a transaction whose callback throws', async () => {
    const failure = new Error('rolled back');
    await expect(
      app.producer.transaction((tx) => {
        tx.produce('withdrawals', { paid: 20 });
        tx.produce('deposits', { amount: -20 });
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await contents('withdrawals')).toEqual([]);
    expect(await contents('deposits')).toEqual([]);
  });

  it('stores nothing in any topic when the broker refuses one message of the batch', async () => {
    const error = await app.producer
      .produceBatch([
        { topic: 'refunds', content: 1 },
        { topic: 'payouts', content: { too: { deeply: { nested: { content: 1 } } } } },
      ])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MessageRejectedError);
    expect(error).toMatchObject({ status: 400, attempts: 1, topics: ['refunds', 'payouts'] });
    expect((error as Error).message).toMatch(
      /^Publishing a batch of 2 messages to refunds and payouts was refused by the broker with 400: .*deeper than the limit/,
    );
    expect(await contents('refunds')).toEqual([]);
    expect(await contents('payouts')).toEqual([]);
  });

  it('stores nothing of a transaction larger than http.maxBatchMessages, and does not split it', async () => {
    const error = await app.producer
      .transaction((tx) => {
        for (const n of [1, 2, 3]) tx.produce('refunds', n);
        for (const n of [4, 5]) tx.produce('payouts', n);
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MessageRejectedError);
    expect(error).toMatchObject({ status: 400, attempts: 1 });
    expect(await contents('refunds')).toEqual([]);
    expect(await contents('payouts')).toEqual([]);
  });

  it('stores nothing in any topic when one topic of the batch clashes in letter case with an existing one (409)', async () => {
    await app.producer.produce('audit', 'first');
    const error = await app.producer
      .produceBatch([
        { topic: 'shipments', content: 1 },
        { topic: 'Audit', content: 2 },
      ])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MessageRejectedError);
    expect(error).toMatchObject({ status: 409, attempts: 1 });
    expect(await contents('shipments')).toEqual([]);
    expect(await contents('audit')).toEqual(['"first"']);
  });
});

describe('Producer spanning topics through a proxy that NACKs the first attempt', () => {
  let broker: BrokerApp;
  let proxy: ScriptedBroker;

  beforeAll(async () => {
    broker = await startBroker();
    proxy = await startScriptedBroker([nack(), 'proxy'], broker.url);
  });

  afterAll(async () => {
    await proxy.close();
    await broker.close();
  });

  it('resends the whole transaction with the same ids, and the broker stores it once', async () => {
    const app = await startProducer({ broker: proxy.url, retryDelayMs: 1 });
    const { published } = await app.producer.transaction((tx) => {
      tx.produce('parcels', 'a');
      tx.produce('labels', 'b');
      tx.produce('parcels', 'c');
    });
    await app.close();
    expect(proxy.requests.map((request) => request.path)).toEqual(['/mmmq/messages/batch', '/mmmq/messages/batch']);
    expect(proxy.requests[1].ids).toEqual(proxy.requests[0].ids);
    expect(published.map((message) => message.id)).toEqual(proxy.requests[0].ids);
    expect((await broker.stored('parcels')).map((message) => message.content)).toEqual(['"a"', '"c"']);
    expect((await broker.stored('labels')).map((message) => message.id)).toEqual([proxy.requests[0].ids[1]]);
  });
});

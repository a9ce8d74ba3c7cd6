import { MessageRejectedError } from '../src';
import { BrokerApp, startBroker } from './support/broker-app';
import { ProducerApp, startProducer } from './support/producer-app';
import { failure, nack, ScriptedBroker, startScriptedBroker } from './support/scripted-broker';

describe('Producer against the real broker', () => {
  let broker: BrokerApp;
  let app: ProducerApp;

  beforeAll(async () => {
    broker = await startBroker({ http: { maxJsonDepth: 3, maxBatchMessages: 3 } });
    app = await startProducer({ broker: broker.url, retryDelayMs: 1 });
  });

  afterAll(async () => {
    await app.close();
    await broker.close();
  });

  it('resolves with the offset of the ACK, once the message is stored byte for byte', async () => {
    const first = await app.producer.produce('order.created', { orderId: 1, total: 9.5, note: 'grüße' });
    const second = await app.producer.produce('order.created', null, { id: 'order-2', headers: { priority: 5 } });
    expect(first).toEqual({ id: expect.any(String), topic: 'order.created', offset: 0, deliveryMode: 'persistent' });
    expect(second).toEqual({ id: 'order-2', topic: 'order.created', offset: 1, deliveryMode: 'persistent' });
    expect(await broker.stored('order.created')).toEqual([
      { id: first.id, headers: {}, content: '{"orderId":1,"total":9.5,"note":"grüße"}' },
      { id: 'order-2', headers: { priority: 5 }, content: 'null' },
    ]);
  });

  it('accepts the original producer shape, produce({ topic, content, id })', async () => {
    const published = await app.producer.produce({ topic: 'order.paid', content: [1, 2], id: 'paid-1' });
    expect(published).toEqual({ id: 'paid-1', topic: 'order.paid', offset: 0, deliveryMode: 'persistent' });
  });

  it('stores a batch at consecutive offsets, in order', async () => {
    await app.producer.produce('invoices', 0);
    const published = await app.producer.produceBatch([
      { topic: 'invoices', content: 1, id: 'invoice-1' },
      { topic: 'invoices', content: 2 },
      { topic: 'invoices', content: 3, headers: { late: true } },
    ]);
    expect(published.map((message) => message.offset)).toEqual([1, 2, 3]);
    expect(published[0].id).toBe('invoice-1');
    const stored = await broker.stored('invoices');
    expect(stored.map((message) => message.content)).toEqual(['0', '1', '2', '3']);
    expect(stored.slice(1).map((message) => message.id)).toEqual(published.map((message) => message.id));
  });

  it('stores nothing of a batch the broker refuses because one message is invalid', async () => {
    await app.producer.produce('refunds', 'before');
    const error = await app.producer
      .produceBatch([
        { topic: 'refunds', content: 1 },
        { topic: 'refunds', content: { too: { deeply: { nested: { content: 1 } } } } },
        { topic: 'refunds', content: 3 },
      ])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MessageRejectedError);
    expect(error).toMatchObject({ status: 400, attempts: 1 });
    expect((error as Error).message).toMatch(
      /^Publishing a batch of 3 messages to refunds was refused by the broker with 400: .*deeper than the limit/,
    );
    expect((await broker.stored('refunds')).map((message) => message.content)).toEqual(['"before"']);
  });

  it('stores nothing of a batch larger than the broker accepts, and does not split it', async () => {
    const batch = [1, 2, 3, 4].map((content) => ({ topic: 'refunds', content }));
    await expect(app.producer.produceBatch(batch)).rejects.toMatchObject({ status: 400 });
    expect(await broker.stored('refunds')).toHaveLength(1);
  });

  it('does not retry a topic whose name clashes with an existing one in letter case (409)', async () => {
    const error = await app.producer.produce('Order.Created', 1).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MessageRejectedError);
    expect(error).toMatchObject({ status: 409, attempts: 1 });
  });

  describe('through a proxy that fails the first attempts', () => {
    let proxy: ScriptedBroker;

    afterEach(() => proxy.close());

    it('stores the message once, under the id every attempt carried', async () => {
      proxy = await startScriptedBroker([nack(), failure(503, 'busy', { 'retry-after': '0' }), 'proxy'], broker.url);
      const viaProxy = await startProducer({ broker: proxy.url, retryDelayMs: 1 });
      const published = await viaProxy.producer.produce('shipments', { parcel: 7 });
      await viaProxy.close();
      expect(proxy.requests.map((request) => request.ids)).toEqual([[published.id], [published.id], [published.id]]);
      expect(await broker.stored('shipments')).toEqual([{ id: published.id, headers: {}, content: '{"parcel":7}' }]);
    });

    it('stores a retried batch once, with the same ids at consecutive offsets', async () => {
      proxy = await startScriptedBroker([nack(), 'proxy'], broker.url);
      const viaProxy = await startProducer({ broker: proxy.url, retryDelayMs: 1 });
      const published = await viaProxy.producer.produceBatch([
        { topic: 'parcels', content: 'a' },
        { topic: 'parcels', content: 'b' },
      ]);
      await viaProxy.close();
      expect(proxy.requests[1].ids).toEqual(proxy.requests[0].ids);
      expect(published).toEqual([
        { id: proxy.requests[0].ids[0], topic: 'parcels', offset: 0, deliveryMode: 'persistent' },
        { id: proxy.requests[0].ids[1], topic: 'parcels', offset: 1, deliveryMode: 'persistent' },
      ]);
      expect((await broker.stored('parcels')).map((message) => message.id)).toEqual(proxy.requests[0].ids);
    });
  });
});

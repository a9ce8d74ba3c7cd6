import { InvalidMessageError, InvalidTopicError } from '@mmmq/core';
import { BrokerUnreachableError, ProduceError, ProducerClosedError, ProducerTransaction, TransactionEndedError } from '../src';
import { ProducerApp } from './support/producer-app';
import { RecordingGateway, startProducerWith } from './support/recording-gateway';

describe('Producer.transaction', () => {
  let gateway: RecordingGateway;
  let app: ProducerApp;

  beforeEach(async () => {
    gateway = new RecordingGateway();
    app = await startProducerWith(gateway);
  });

  afterEach(() => app.close());

  const sentIds = () => gateway.requests.map((request) => request.map((message) => message.id));

  it('sends nothing while the callback runs, then commits every message as one request, in tx.produce() order', async () => {
    let sentDuringCallback: number | undefined;
    const { result, published } = await app.producer.transaction(async (tx) => {
      tx.produce('orders', { n: 1 }, { id: 'order-1', headers: { vip: true } });
      await new Promise<void>((resolve) => setImmediate(resolve));
      tx.produce({ topic: 'invoices', content: { n: 2 }, id: 'invoice-1' });
      tx.produce('orders', null, { id: 'order-2' });
      sentDuringCallback = gateway.requests.length;
      return 'done';
    });
    expect(sentDuringCallback).toBe(0);
    expect(result).toBe('done');
    expect(sentIds()).toEqual([['order-1', 'invoice-1', 'order-2']]);
    expect(gateway.requests[0]).toEqual([
      { topic: 'orders', id: 'order-1', headers: { vip: true }, content: '{"n":1}' },
      { topic: 'invoices', id: 'invoice-1', headers: undefined, content: '{"n":2}' },
      { topic: 'orders', id: 'order-2', headers: undefined, content: 'null' },
    ]);
    expect(published).toEqual([
      { id: 'order-1', topic: 'orders', offset: 0, deliveryMode: 'persistent' },
      { id: 'invoice-1', topic: 'invoices', offset: 0, deliveryMode: 'persistent' },
      { id: 'order-2', topic: 'orders', offset: 1, deliveryMode: 'persistent' },
    ]);
  });

  it('returns the id of each message from tx.produce(), a fresh UUID when none is given', async () => {
    let ids: string[] = [];
    const { published } = await app.producer.transaction((tx) => {
      ids = [tx.produce('orders', 1), tx.produce('orders', 2, { id: 'given' })];
    });
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[1]).toBe('given');
    expect(published.map((message) => message.id)).toEqual(ids);
  });

  it('sends nothing and rethrows the very error when the callback throws or rejects', async () => {
    const failure = new Error('the order could not be saved');
    await expect(
      app.producer.transaction(async (tx) => {
        tx.produce('orders', 1);
        await Promise.resolve();
        throw failure;
      }),
    ).rejects.toBe(failure);
    await expect(
      app.producer.transaction((tx) => {
        tx.produce('orders', 2);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(gateway.requests).toEqual([]);
  });

  it('sends nothing for a transaction without messages', async () => {
    await expect(app.producer.transaction(async () => 42)).resolves.toEqual({ result: 42, published: [] });
    expect(gateway.requests).toEqual([]);
  });

  it('refuses tx.produce() once the callback has settled, leaving the committed batch as it was', async () => {
    let kept: ProducerTransaction | undefined;
    const { published } = await app.producer.transaction((tx) => {
      kept = tx;
      tx.produce('orders', 1);
    });
    expect(() => kept!.produce('orders', 2)).toThrow(TransactionEndedError);
    expect(() => kept!.produce({ topic: 'orders', content: 2 })).toThrow(
      /^Cannot add a message for orders to a transaction whose callback already resolved: the transaction was sent without/,
    );
    await app.producer
      .transaction((tx) => {
        kept = tx;
        throw new Error('abandoned');
      })
      .catch(() => undefined);
    expect(() => kept!.produce('orders', 3)).toThrow(/callback already threw: nothing of it was sent/);
    expect(published).toHaveLength(1);
    expect(gateway.requests).toHaveLength(1);
  });

  it('validates each message at tx.produce(), naming its index in the transaction and keeping the error class', async () => {
    const caught: unknown[] = [];
    const { published } = await app.producer.transaction((tx) => {
      tx.produce('orders', 1);
      for (const attempt of [() => tx.produce('a..b', 2), () => tx.produce('orders', undefined, { id: 'has space' })]) {
        try {
          attempt();
        } catch (error) {
          caught.push(error);
        }
      }
      tx.produce('invoices', 3);
    });
    expect(caught[0]).toBeInstanceOf(InvalidTopicError);
    expect((caught[0] as Error).message).toMatch(/^messages\[1\]: Topic name "a\.\.b" has an empty segment/);
    expect(caught[1]).toBeInstanceOf(InvalidMessageError);
    expect((caught[1] as Error).message).toMatch(/^messages\[1\]: /);
    // Refused messages are not added: the valid ones are committed, at the indexes the errors named.
    expect(published.map((message) => message.topic)).toEqual(['orders', 'invoices']);
  });

  it('sends nothing when an invalid message makes the callback throw', async () => {
    const error = await app.producer
      .transaction((tx) => {
        tx.produce('orders', 1);
        tx.produce('__reserved', 2);
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidTopicError);
    expect((error as Error).message).toMatch(/^messages\[1\]: Topic __reserved is reserved/);
    expect(gateway.requests).toEqual([]);
  });

  it('retries the commit whole with the same ids, and reports a failed commit as a ProduceError', async () => {
    await app.close();
    gateway = new RecordingGateway([new BrokerUnreachableError('Could not reach the broker: socket hang up')]);
    app = await startProducerWith(gateway, { maxRetryCount: 2 });
    const error = await app.producer
      .transaction((tx) => {
        tx.produce('orders', 1, { id: 'o' });
        tx.produce('invoices', 2, { id: 'i' });
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProduceError);
    expect(error).toMatchObject({ topics: ['orders', 'invoices'], ids: ['o', 'i'], attempts: 3 });
    expect(sentIds()).toEqual([
      ['o', 'i'],
      ['o', 'i'],
      ['o', 'i'],
    ]);
  });

  it('refuses to start a transaction once the producer is closed, without running the callback', async () => {
    await app.close();
    const work = jest.fn();
    const error = await app.producer.transaction(work).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProducerClosedError);
    expect((error as Error).message).toBe(
      'Cannot publish a transaction: the producer is closed because the application is shutting down. Nothing was sent.',
    );
    expect(work).not.toHaveBeenCalled();
  });

  it('refuses the commit when the producer closed while the callback ran', async () => {
    const error = await app.producer
      .transaction(async (tx) => {
        tx.produce('orders', 1);
        await app.close();
        tx.produce('invoices', 2);
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProducerClosedError);
    expect(error).toMatchObject({ topics: ['orders', 'invoices'], attempts: 0 });
    expect(gateway.requests).toEqual([]);
  });
});

import { Producer } from '@mmmq/producer';
import { BrokerApp, startBroker } from '@mmmq/test-support';
import { lastValueFrom } from 'rxjs';
import { MmmqClient } from '../src/client/mmmq-client';
import { MmmqRecord, MmmqRecordBuilder } from '../src/client/mmmq-record';
import { RequestTimeoutError } from '@mmmq/producer';
import { UnsupportedPatternError } from '../src/errors/unsupported-pattern.error';
import { ClientApp, startAsyncClientApp, startClientApp } from './support/client-app';

describe('MmmqClient against the real broker', () => {
  let broker: BrokerApp;
  let app: ClientApp;

  beforeAll(async () => {
    broker = await startBroker();
    app = await startClientApp({ broker: broker.url, retryDelayMs: 1 });
  });

  afterAll(async () => {
    await app?.close();
    await broker?.close();
  });

  it('emit() resolves with the ACK, and the broker stores the data byte for byte as Producer.produce() does', async () => {
    const order = { orderId: 1, total: 9.5, note: 'grüße', tags: ['a', null] };
    const published = await lastValueFrom(app.client.emit('order.created', order));
    expect(published).toEqual({ id: expect.any(String), topic: 'order.created', offset: 0, deliveryMode: 'persistent' });
    await app.client.unwrap<Producer>().produce('order.produced', order);
    const [stored] = await broker.stored('order.created');
    expect(stored).toEqual({ id: published.id, headers: {}, content: '{"orderId":1,"total":9.5,"note":"grüße","tags":["a",null]}' });
    expect(stored.content).toBe((await broker.stored('order.produced'))[0].content);
  });

  it('publishes an MmmqRecord with its id and headers; its data is the content', async () => {
    const record = new MmmqRecord({ orderId: 2 }, { id: 'order-2', headers: { priority: 5, urgent: true } });
    const published = await lastValueFrom(app.client.emit('order.paid', record));
    const built = new MmmqRecordBuilder<string>().setData('three').setId('order-3').setHeaders({ region: 'eu' }).build();
    await lastValueFrom(app.client.emit('order.paid', built));
    expect(published).toEqual({ id: 'order-2', topic: 'order.paid', offset: 0, deliveryMode: 'persistent' });
    expect(await broker.stored('order.paid')).toEqual([
      { id: 'order-2', headers: { priority: 5, urgent: true }, content: '{"orderId":2}' },
      { id: 'order-3', headers: { region: 'eu' }, content: '"three"' },
    ]);
  });

  it('publishes an MmmqRecord scheduled with delayMs or deliverAt: stored at once with its due time', async () => {
    const before = Date.now();
    const delayed = await lastValueFrom(app.client.emit('order.later', new MmmqRecord({ orderId: 7 }, { delayMs: 60_000 })));
    const at = new Date(before + 120_000);
    await lastValueFrom(app.client.emit('order.later', new MmmqRecordBuilder().setData({ orderId: 8 }).setDeliverAt(at).build()));
    expect(delayed).toMatchObject({ topic: 'order.later', offset: 0 });
    const stored = await broker.stored('order.later');
    expect(stored[0].dueAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(stored[1].dueAt).toBe(at.getTime());
  });

  it('errors with UnsupportedPatternError for an object pattern, and publishes nothing', async () => {
    const error = await lastValueFrom(app.client.emit({ cmd: 'order.refunded' }, { orderId: 4 })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnsupportedPatternError);
    expect((error as Error).message).toContain('MMMQ topics are strings');
    expect((error as Error).message).toContain('{"cmd":"order.refunded"}');
    expect(await broker.stored('order.refunded')).toEqual([]);
  });

  it('publishes send() as a request with reply headers, and errors with RequestTimeoutError when nobody answers', async () => {
    const sent = app.client.send('order.quote', new MmmqRecord({ orderId: 5 }, { id: 'quote-5', timeoutMs: 200 }));
    const error = await lastValueFrom(sent).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ topic: 'order.quote', id: 'quote-5', timeoutMs: 200 });
    const [stored] = await broker.stored('order.quote');
    expect(stored).toMatchObject({ id: 'quote-5', content: '{"orderId":5}' });
    expect(Object.keys(stored.headers ?? {}).sort()).toEqual(['mmmq-correlation-id', 'mmmq-reply-to']);
  });

  describe('with a custom serializer, registered with registerAsync', () => {
    it('publishes the data key of what the serializer returns', async () => {
      const serializer = { serialize: ({ pattern, data }: { pattern: string; data: unknown }) => ({ data: { pattern, data } }) };
      const custom = await startAsyncClientApp(() => ({ broker: broker.url, serializer }));
      try {
        await lastValueFrom(custom.client.emit('order.wrapped', new MmmqRecord([1], { id: 'wrapped-1' })));
      } finally {
        await custom.close();
      }
      expect(await broker.stored('order.wrapped')).toEqual([
        { id: 'wrapped-1', headers: {}, content: '{"pattern":"order.wrapped","data":[1]}' },
      ]);
    });

    it('publishes what the serializer returns when it has no data key', async () => {
      const client = new MmmqClient({ broker: broker.url, serializer: { serialize: ({ data }) => `order ${data.orderId}` } });
      try {
        await lastValueFrom(client.emit('order.text', { orderId: 6 }));
      } finally {
        await client.close();
      }
      expect((await broker.stored('order.text')).map((message) => message.content)).toEqual(['"order 6"']);
    });
  });
});

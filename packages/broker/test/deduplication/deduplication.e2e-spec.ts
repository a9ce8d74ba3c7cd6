import { spawnBroker, startBroker, TestConsumer, useTempDir, waitFor, type BrokerApp, type BrokerProcess } from '@mmmq/test-support';
import type { MmmqBrokerOptions } from '../../src';
import { Deduplicator } from '../../src/deduplication/deduplicator';
import { Fetched, PullClient, waitUntil } from '../delivery/pull.fixture';
import { IoSpy } from '../storage/io-spy';
import { StreamClient } from '../stream/stream-client';

const MESSAGES = '/mmmq/messages';
const BATCH = '/mmmq/messages/batch';

describe('broker-side de-duplication with the real broker', () => {
  const dir = useTempDir('mmmq-dedup-');
  let broker: BrokerApp | undefined;
  let consumer: TestConsumer | undefined;

  afterEach(async () => {
    jest.restoreAllMocks();
    await broker?.close();
    await consumer?.stop();
    broker = consumer = undefined;
  });

  const start = async (options: MmmqBrokerOptions = {}) => (broker = await startBroker(options));
  const publish = (body: Record<string, unknown>) => broker!.request('POST', MESSAGES, body);
  const topicInfo = async (topic: string) => (await broker!.request('GET', `/mmmq/topics/${topic}`)).body;

  it('answers a re-publish of a known id with the original ACK, stores one copy and delivers it once', async () => {
    await start();
    consumer = new TestConsumer();
    await consumer.start();
    await broker!.addDispatcher('billing', consumer.url, 'order.*');
    const first = await publish({ topic: 'order.created', id: 'order-1', content: { n: 1 } });
    expect(first.body).toEqual({ acknowledgement: 'ACK', id: 'order-1', topic: 'order.created', offset: 0, deliveryMode: 'persistent' });
    const again = await publish({ topic: 'order.created', id: 'order-1', content: { n: 1 } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, duplicate: true });
    await publish({ topic: 'order.created', id: 'order-2', content: { n: 2 } });
    await consumer.waitFor(() => consumer!.received.some(({ body }) => body.id === 'order-2'), { message: 'order-2 delivered' });
    expect(consumer.received.map(({ body }) => body.id)).toEqual(['order-1', 'order-2']);
    expect((await broker!.stored('order.created')).map(({ id }) => id)).toEqual(['order-1', 'order-2']);
    expect(await topicInfo('order.created')).toMatchObject({
      messages: 2,
      messagesDeduplicated: 1,
      deduplication: { deduplicated: 1, evicted: 0, remembered: 2 },
    });
  });

  it('remembers ids per topic, never broker-assigned ones, and not at all on a topic with windowMs 0', async () => {
    await start({ topics: { overrides: [{ pattern: 'metrics.*', deduplication: { windowMs: 0 } }] } });
    expect((await publish({ topic: 'order.created', id: 'same', content: 1 })).body.offset).toBe(0);
    expect((await publish({ topic: 'order.paid', id: 'same', content: 1 })).body).not.toHaveProperty('duplicate');
    expect((await publish({ topic: 'metrics.cpu', id: 'same', content: 1 })).body.offset).toBe(0);
    expect((await publish({ topic: 'metrics.cpu', id: 'same', content: 1 })).body).toMatchObject({ offset: 1 });
    const assigned = [await publish({ topic: 'order.created', content: 2 }), await publish({ topic: 'order.created', content: 2 })];
    expect(assigned.map(({ body }) => body.offset)).toEqual([1, 2]);
    expect(await topicInfo('metrics.cpu')).toMatchObject({ messagesDeduplicated: 0, deduplication: null });
  });

  it('still knows the ids after a clean restart: the window is rebuilt from the log', async () => {
    const rootDir = dir();
    await start({ persistence: { rootDir } });
    await publish({ topic: 'order.created', id: 'before-restart', content: 1 });
    await publish({ topic: 'order.created', id: 'also-before', content: 2 });
    await broker!.close();
    await start({ persistence: { rootDir } });
    const again = await publish({ topic: 'order.created', id: 'before-restart', content: 1 });
    expect(again.body).toMatchObject({ id: 'before-restart', offset: 0, duplicate: true });
    expect((await publish({ topic: 'order.created', id: 'after-restart', content: 3 })).body.offset).toBe(2);
    expect(await broker!.stored('order.created')).toHaveLength(3);
  });

  it('stores a re-publish anew once the window has passed', async () => {
    await start({ topics: { defaults: { deduplication: { windowMs: 50 } } } });
    const first = await publish({ topic: 'order.created', id: 'late', content: 1 });
    const publishedAt = Date.now();
    await waitFor(() => Date.now() - publishedAt > 100, { message: 'the window to pass' });
    const later = await publish({ topic: 'order.created', id: 'late', content: 1 });
    expect([first.body.offset, later.body.offset]).toEqual([0, 1]);
    expect(later.body).not.toHaveProperty('duplicate');
  });

  it('stores one copy of concurrent publishes of one id: the later ones wait for the first commit and get its ACK', async () => {
    await start();
    await publish({ topic: 'order.created', id: 'warm-up', content: 0 });
    // Every journal fsync is held until all publishes of the id are in the broker: none is committed before.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    IoSpy.install().onSync((path, proceed) => (path.endsWith('.journal') ? held.then(proceed) : undefined));
    const claims = jest.spyOn(Deduplicator.prototype, 'claim');
    const answers = Array.from({ length: 8 }, () => publish({ topic: 'order.created', id: 'racing', content: 1 }));
    await waitFor(() => claims.mock.calls.length === 8, { message: 'all eight publishes to reach the de-duplication' });
    release();
    const bodies = (await Promise.all(answers)).map(({ status, body }) => ({ status, offset: body.offset, duplicate: body.duplicate }));
    expect(bodies.every(({ status, offset }) => status === 200 && offset === 1)).toBe(true);
    expect(bodies.filter(({ duplicate }) => duplicate === undefined)).toHaveLength(1);
    expect((await broker!.stored('order.created')).map(({ id }) => id)).toEqual(['warm-up', 'racing']);
  });

  it('stores only the new messages of a batch and answers the known ids, also those repeated in it, with their ACKs', async () => {
    await start();
    await publish({ topic: 'order.created', id: 'known', content: 0 });
    const batch = await broker!.request('POST', BATCH, {
      messages: [
        { topic: 'order.created', id: 'known', content: 0 },
        { topic: 'order.created', id: 'new', content: 1 },
        { topic: 'order.paid', id: 'paid', content: 2 },
        { topic: 'order.created', id: 'new', content: 1 },
      ],
    });
    expect(batch.body.messages).toEqual([
      { id: 'known', topic: 'order.created', offset: 0, deliveryMode: 'persistent', duplicate: true },
      { id: 'new', topic: 'order.created', offset: 1, deliveryMode: 'persistent' },
      { id: 'paid', topic: 'order.paid', offset: 0, deliveryMode: 'persistent' },
      { id: 'new', topic: 'order.created', offset: 1, deliveryMode: 'persistent', duplicate: true },
    ]);
    const allKnown = await broker!.request('POST', BATCH, {
      messages: [
        { topic: 'order.paid', id: 'paid', content: 2 },
        { topic: 'order.created', id: 'new', content: 1 },
      ],
    });
    expect(allKnown.body.messages.map(({ offset, duplicate }: any) => [offset, duplicate])).toEqual([
      [0, true],
      [1, true],
    ]);
    expect((await broker!.stored('order.created')).map(({ id }) => id)).toEqual(['known', 'new']);
    expect(await broker!.stored('order.paid')).toHaveLength(1);
  });

  it('keeps no memory of a refused publish: a retry is refused again, not answered as a duplicate', async () => {
    await start({ topics: { defaults: { limits: { maxMessages: 1 } } } });
    expect((await publish({ topic: 'order.created', id: 'fits', content: 1 })).status).toBe(200);
    expect((await publish({ topic: 'order.created', id: 'refused', content: 2 })).status).toBe(429);
    const retry = await publish({ topic: 'order.created', id: 'refused', content: 2 });
    expect(retry.status).toBe(429);
    expect(await broker!.stored('order.created')).toHaveLength(1);
  });

  it('forgets the oldest ids at maxIds (the window shrinks) and counts them', async () => {
    await start({ topics: { defaults: { deduplication: { maxIds: 2 } } } });
    for (const id of ['a', 'b', 'c']) await publish({ topic: 'order.created', id, content: id });
    expect((await publish({ topic: 'order.created', id: 'c', content: 'c' })).body).toMatchObject({ offset: 2, duplicate: true });
    expect((await publish({ topic: 'order.created', id: 'a', content: 'a' })).body).toMatchObject({ offset: 3 });
    expect(await topicInfo('order.created')).toMatchObject({ deduplication: { deduplicated: 1, evicted: 2, remembered: 2 } });
  });

  it('de-duplicates a nonPersistent re-publish with the original offset once it is committed', async () => {
    await start({ topics: { defaults: { deliveryMode: 'nonPersistent' } } });
    const first = await publish({ topic: 'metrics.cpu', id: 'np', content: 1 });
    expect(first.body).toEqual({ acknowledgement: 'ACK', id: 'np', topic: 'metrics.cpu', deliveryMode: 'nonPersistent' });
    const again = await publish({ topic: 'metrics.cpu', id: 'np', content: 1 });
    expect(again.body).toMatchObject({ id: 'np', offset: 0, deliveryMode: 'persistent', duplicate: true });
    // A batch answered on receipt: the repeat of an id is flagged, without an offset, and stored once.
    const batch = await broker!.request('POST', BATCH, {
      messages: [
        { topic: 'metrics.cpu', id: 'twice', content: 2 },
        { topic: 'metrics.cpu', id: 'twice', content: 2 },
      ],
    });
    expect(batch.body.messages).toEqual([
      { id: 'twice', topic: 'metrics.cpu', deliveryMode: 'nonPersistent' },
      { id: 'twice', topic: 'metrics.cpu', deliveryMode: 'nonPersistent', duplicate: true },
    ]);
    await waitFor(async () => (await broker!.stored('metrics.cpu')).length === 2, { message: 'the batch stored' });
    expect((await broker!.stored('metrics.cpu')).map(({ id }) => id)).toEqual(['np', 'twice']);
  });

  it('de-duplicates the publish stream like HTTP', async () => {
    await start({ stream: { port: 0 } });
    const stream = StreamClient.connect(broker!);
    try {
      stream.sendAll(1, [
        { topic: 'order.created', id: 'streamed', content: 1 },
        { topic: 'order.created', id: 'streamed', content: 1 },
      ]);
      const [first, second] = await Promise.all([stream.answer(1), stream.answer(2)]);
      expect(first.body).toMatchObject({ acknowledgement: 'ACK', offset: 0 });
      expect(first.body).not.toHaveProperty('duplicate');
      expect(second.body).toMatchObject({ acknowledgement: 'ACK', offset: 0, duplicate: true });
    } finally {
      stream.close();
    }
    expect(await broker!.stored('order.created')).toHaveLength(1);
  });

  it("de-duplicates a transaction's outputs; its inputs are settled either way", async () => {
    await start();
    await publish({ topic: 'invoice.issued', id: 'invoice-1', content: { n: 1 } });
    const client = new PullClient(broker!, 'invoicing');
    await client.register({ pattern: 'order.in' });
    await broker!.publishAll('order.in', [{ n: 1 }]);
    let fetched: Fetched[] = [];
    await waitUntil(async () => (fetched = await client.fetch()).length === 1, 'the input fetched');
    const committed = await broker!.request('POST', '/mmmq/transactions', {
      consumerId: 'invoicing',
      settle: [fetched[0].lease],
      messages: [{ topic: 'invoice.issued', id: 'invoice-1', content: { n: 1 } }],
    });
    expect(committed.status).toBe(200);
    expect(committed.body).toMatchObject({ settled: 1, messages: [{ id: 'invoice-1', offset: 0, duplicate: true }] });
    expect(await broker!.stored('invoice.issued')).toHaveLength(1);
    await broker!.caughtUp('invoicing', 'order.in');
  });
});

describe('broker-side de-duplication across a SIGKILL of the broker process', () => {
  const dir = useTempDir('mmmq-dedup-crash-');
  let running: BrokerProcess | undefined;

  afterEach(async () => {
    running?.child.kill('SIGKILL');
    await running?.exited;
  });

  const publishTo = async (url: string, body: Record<string, unknown>) => {
    const response = await fetch(`${url}${MESSAGES}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    // Tests read whatever JSON came back.
    return { status: response.status, body: (await response.json()) as any };
  };

  it('knows every id it acknowledged before the kill: the window is rebuilt from what the journal made durable', async () => {
    const rootDir = dir();
    running = await spawnBroker({ MMMQ_ROOT_DIR: rootDir });
    const acks: Array<Record<string, unknown>> = [];
    for (let n = 0; n < 20; n++) acks.push((await publishTo(running.url, { topic: 'order.created', id: `o-${n}`, content: n })).body);
    running.child.kill('SIGKILL');
    await running.exited;
    running = await spawnBroker({ MMMQ_ROOT_DIR: rootDir });
    for (const ack of acks) {
      const again = await publishTo(running.url, { topic: 'order.created', id: ack.id, content: 0 });
      expect(again.body).toEqual({ ...ack, duplicate: true });
    }
    expect((await publishTo(running.url, { topic: 'order.created', id: 'new', content: 0 })).body.offset).toBe(20);
  });
});

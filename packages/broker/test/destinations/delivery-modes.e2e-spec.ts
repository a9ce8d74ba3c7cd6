import { Topic } from '@mmmq/core';
import { spawnBroker, startBroker, TestConsumer, useTempDir, type BrokerApp } from '@mmmq/test-support';
import { decodeEnvelope } from '../../src/format/message-envelope';
import { IoSpy } from '../storage/io-spy';
import { TopicQueueContainer } from '../../src/storage/topic-queue-container';
import { persistenceOptions } from '../support/topic-fixture';

const MESSAGES = '/mmmq/messages';

describe('delivery modes with the real broker', () => {
  const dir = useTempDir('mmmq-modes-');
  let broker: BrokerApp;
  let consumer: TestConsumer;

  beforeEach(async () => {
    consumer = new TestConsumer();
    await consumer.start();
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await broker?.close();
    await consumer.stop();
  });

  const start = (rootDir?: string) =>
    startBroker({
      persistence: rootDir === undefined ? undefined : { rootDir },
      topics: { overrides: [{ pattern: 'metrics.*', deliveryMode: 'nonPersistent' }] },
    });

  it('acknowledges a nonPersistent message without an offset and delivers it, with its offset, to a consumer', async () => {
    broker = await start();
    await broker.addDispatcher('billing', consumer.url, 'order.*');
    const fast = await broker.request('POST', MESSAGES, { topic: 'order.created', id: 'np-1', content: 1, deliveryMode: 'nonPersistent' });
    expect(fast).toMatchObject({
      status: 200,
      body: { acknowledgement: 'ACK', id: 'np-1', topic: 'order.created', deliveryMode: 'nonPersistent' },
    });
    expect(fast.body).not.toHaveProperty('offset');
    const durable = await broker.request('POST', MESSAGES, { topic: 'order.created', id: 'p-1', content: 2 });
    expect(durable.body).toEqual({ acknowledgement: 'ACK', id: 'p-1', topic: 'order.created', offset: 1, deliveryMode: 'persistent' });
    await consumer.waitFor(() => consumer.received.length === 2, { message: 'both messages delivered' });
    expect(consumer.received.map(({ body }) => [body.id, body.offset])).toEqual([
      ['np-1', 0],
      ['p-1', 1],
    ]);
  });

  it("takes the topic's default mode for a message without one; a message's own mode wins; both are delivered", async () => {
    broker = await start();
    await broker.addDispatcher('dashboards', consumer.url, 'metrics.*');
    const byDefault = await broker.request('POST', MESSAGES, { topic: 'metrics.cpu', id: 'd', content: 0.5 });
    expect(byDefault.body).toEqual({ acknowledgement: 'ACK', id: 'd', topic: 'metrics.cpu', deliveryMode: 'nonPersistent' });
    const own = await broker.request('POST', MESSAGES, { topic: 'metrics.cpu', id: 'own', content: 0.7, deliveryMode: 'persistent' });
    expect(own.body).toMatchObject({ id: 'own', offset: 1, deliveryMode: 'persistent' });
    await consumer.waitFor(() => consumer.received.length === 2, { message: 'both metrics delivered' });
    expect(consumer.received.map(({ body }) => body.id)).toEqual(['d', 'own']);
  });

  it('acknowledges a batch as persistent, with every offset, when any of its messages is persistent', async () => {
    broker = await start();
    const mixed = await broker.request('POST', `${MESSAGES}/batch`, {
      messages: [
        { topic: 'metrics.cpu', id: 'a', content: 1 },
        { topic: 'order.created', id: 'b', content: 2, deliveryMode: 'persistent' },
      ],
    });
    expect(mixed.body.messages).toEqual([
      { id: 'a', topic: 'metrics.cpu', offset: 0, deliveryMode: 'persistent' },
      { id: 'b', topic: 'order.created', offset: 0, deliveryMode: 'persistent' },
    ]);
    const allNonPersistent = await broker.request('POST', `${MESSAGES}/batch`, {
      messages: [
        { topic: 'metrics.cpu', id: 'c', content: 3 },
        { topic: 'order.created', id: 'd', content: 4, deliveryMode: 'nonPersistent' },
      ],
    });
    expect(allNonPersistent.body.messages).toEqual([
      { id: 'c', topic: 'metrics.cpu', deliveryMode: 'nonPersistent' },
      { id: 'd', topic: 'order.created', deliveryMode: 'nonPersistent' },
    ]);
  });

  it('refuses an unknown delivery mode with 400 naming the field, and stores nothing', async () => {
    broker = await start();
    const refused = await broker.request('POST', MESSAGES, { topic: 'order.created', content: 1, deliveryMode: 'fast' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/"deliveryMode" must be one of persistent, nonPersistent, got "fast"/);
    const inBatch = await broker.request('POST', `${MESSAGES}/batch`, {
      messages: [
        { topic: 'order.created', content: 1 },
        { topic: 'order.created', content: 2, deliveryMode: 2 },
      ],
    });
    expect(inBatch.status).toBe(400);
    expect(inBatch.body.message).toMatch(/^messages\[1\]: Message field "deliveryMode"/);
    expect(await broker.stored('order.created')).toEqual([]);
  });

  it('keeps every acknowledged nonPersistent message across a clean restart: shutdown writes them and makes them durable', async () => {
    const rootDir = dir();
    broker = await start(rootDir);
    // The topic exists first: creating one waits for durable files of its own.
    await broker.request('POST', MESSAGES, { topic: 'metrics.cpu', id: 'first', content: 0, deliveryMode: 'persistent' });
    // Every journal fsync is held until the shutdown has begun: each ACK below is sent before anything is durable.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    IoSpy.install().onSync((path, proceed) => (path.endsWith('.journal') ? held.then(proceed) : undefined));
    const ids = Array.from({ length: 500 }, (_, n) => `np-${n}`);
    const acks: unknown[] = [];
    let next = 0;
    // 32 clients, each publishing one message after the other: many commits queued at any time.
    const client = async () => {
      for (let n = next++; n < ids.length; n = next++) {
        const ack = await broker.request('POST', MESSAGES, { topic: 'metrics.cpu', id: ids[n], content: n });
        acks.push(ack.body.deliveryMode);
      }
    };
    await Promise.all(Array.from({ length: 32 }, client));
    expect(acks).toEqual(ids.map(() => 'nonPersistent'));
    expect(broker.topics.get('metrics.cpu')?.tailOffset).toBe(1);
    const closing = broker.close();
    release();
    await closing;
    jest.restoreAllMocks();
    broker = await start(rootDir);
    const stored = (await broker.stored('metrics.cpu')).map((message) => message.id);
    expect(stored.sort()).toEqual(['first', ...ids].sort());
  });
});

/** One HTTP publish as the crash test's clients saw it. */
interface Sent {
  id: string;
  mode: 'persistent' | 'nonPersistent';
  sentAt: number;
  ackedAt?: number;
  offset?: number;
}

const CRASH_CLIENTS = 16;
const CRASH_MESSAGES = 4_000;
const KILL_AFTER_ACKS = 1_500;

describe('delivery modes across a SIGKILL of the broker process', () => {
  const dir = useTempDir('mmmq-modes-crash-');
  let consumer: TestConsumer;

  afterEach(() => consumer?.stop());

  it('never loses a persistent ACKed message, nor a delivered one, nor a nonPersistent one a later persistent ACK proves durable', async () => {
    const broker = await spawnBroker({ MMMQ_ROOT_DIR: dir() });
    consumer = new TestConsumer();
    await consumer.start();
    const added = await fetch(`${broker.url}/mmmq/dispatchers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ consumerId: 'watcher', host: consumer.url, pattern: 'crash.modes' }),
    });
    expect(added.status).toBe(201);

    const sent: Sent[] = [];
    let acked = 0;
    let next = 0;
    const client = async () => {
      while (next < CRASH_MESSAGES) {
        const n = next++;
        const message: Sent = { id: `m-${n}`, mode: n % 3 === 0 ? 'persistent' : 'nonPersistent', sentAt: performance.now() };
        sent.push(message);
        try {
          const response = await fetch(`${broker.url}${MESSAGES}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ topic: 'crash.modes', id: message.id, content: n, deliveryMode: message.mode }),
          });
          const body = (await response.json()) as { offset?: number };
          if (response.status !== 200) continue;
          message.ackedAt = performance.now();
          message.offset = body.offset;
          if (++acked === KILL_AFTER_ACKS) broker.child.kill('SIGKILL');
        } catch {
          return; // the broker is gone
        }
      }
    };
    await Promise.all(Array.from({ length: CRASH_CLIENTS }, client));
    expect(await broker.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const delivered = new Set(consumer.received.map(({ body }) => body.id));

    const stored = await readTopic(dir(), 'crash.modes');
    const storedAt = new Map(stored.map((id, offset) => [id, offset]));
    const ackedPersistent = sent.filter((message) => message.mode === 'persistent' && message.ackedAt !== undefined);
    expect(ackedPersistent.length).toBeGreaterThan(0);
    for (const message of ackedPersistent) expect([message.id, storedAt.get(message.id)]).toEqual([message.id, message.offset]);
    for (const id of delivered) expect(storedAt.has(id)).toBe(true);
    // A persistent publish sent after a nonPersistent one was ACKed is stored after it; once it is ACKed, so is that one durable.
    const lastProvenSend = Math.max(...ackedPersistent.map((message) => message.sentAt));
    const provenDurable = sent.filter((message) => message.mode === 'nonPersistent' && (message.ackedAt ?? Infinity) < lastProvenSend);
    expect(provenDurable.length).toBeGreaterThan(0);
    expect(provenDurable.filter((message) => !storedAt.has(message.id)).map((message) => message.id)).toEqual([]);
    // Whatever else is stored was sent (an unacknowledged publish may be stored too), and nothing is stored twice.
    const sentIds = new Set(sent.map((message) => message.id));
    expect(stored.filter((id) => !sentIds.has(id))).toEqual([]);
    expect(new Set(stored).size).toBe(stored.length);
  }, 120_000);
});

/** Recovers the data directory in this process, once the broker process is gone, and lists the ids in offset order. */
async function readTopic(rootDir: string, name: string): Promise<string[]> {
  const container = TopicQueueContainer.standalone(persistenceOptions(rootDir));
  try {
    const queue = await container.getOrCreate(Topic.of(name));
    const ids: string[] = [];
    for (let offset = 0; offset < queue.tailOffset; offset++) {
      const payload = await queue.peek(offset);
      if (!payload) throw new Error(`${name}@${offset} is below the tail but unreadable`);
      ids.push(decodeEnvelope(payload).id as string);
    }
    return ids;
  } finally {
    await container.onApplicationShutdown();
  }
}

import { StreamRequestKind } from '@mmmq/core';
import { makeTempDir, removeTempDir, TestConsumer, waitFor } from '@mmmq/test-support';
import { MAX_WINDOW } from '../../src/dispatch/ledger/log-reader';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { PullClient } from '../delivery/pull.fixture';
import { StreamClient } from '../stream/stream-client';

/** Publishes `count` messages (contents `prefix-0`, …) in batches of `BATCH`; fails unless all are stored. */
const BATCH = 1000;
async function publishMany(broker: BrokerApp, topic: string, count: number, prefix = 'm'): Promise<void> {
  for (let first = 0; first < count; first += BATCH) {
    const messages = Array.from({ length: Math.min(BATCH, count - first) }, (_, i) => ({ topic, content: `${prefix}-${first + i}` }));
    const response = await broker.request('POST', '/mmmq/messages/batch', { messages });
    if (response.status !== 200) throw new Error(`batch publish failed: ${response.status} ${JSON.stringify(response.body)}`);
  }
}

const subscribed = (broker: BrokerApp, consumerId: string, topic: string) =>
  waitFor(async () => (await broker.subscription(consumerId, topic)) !== undefined, {
    message: `${consumerId}'s subscription to ${topic}`,
  });

/** Waits until the subscription shows `expected` (a subset of its row) and returns the row. */
async function subscriptionReaches(broker: BrokerApp, consumerId: string, topic: string, expected: (row: any) => boolean, what: string) {
  let row: any;
  await waitFor(
    async () => {
      row = await broker.subscription(consumerId, topic);
      return row !== undefined && expected(row);
    },
    { message: () => `${what}; the subscription is ${JSON.stringify(row)}` },
  );
  return row;
}

describe('a subscription backlog limit with backlogOverflow "reject"', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker({ stream: { port: 0 } });
  });
  afterAll(() => broker.close());

  it('refuses publishes to the topic with 429, Retry-After and a NACK naming the consumer and the limit, until it catches up', async () => {
    const puller = new PullClient(broker, 'slow-reader');
    await puller.register({ pattern: 'limit.reject', maxBacklog: 3 });
    await broker.publishAll('limit.reject', ['a', 'b', 'c']);
    await subscribed(broker, 'slow-reader', 'limit.reject');

    const refused = await broker.request('POST', '/mmmq/messages', { topic: 'limit.reject', content: 'd', id: 'd-1' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toEqual({ acknowledgement: 'NACK', message: expect.stringContaining('consumer slow-reader has 3 messages') });
    expect(refused.body.message).toContain('maxBacklog is 3');

    const batch = await broker.request('POST', '/mmmq/messages/batch', {
      messages: [
        { topic: 'limit.other', content: 'x' },
        { topic: 'limit.reject', content: 'e' },
      ],
    });
    expect(batch.status).toBe(429);
    expect(await broker.stored('limit.other')).toEqual([]);
    expect((await broker.stored('limit.reject')).map((message) => message.content)).toEqual(['"a"', '"b"', '"c"']);

    const [first] = await puller.fetch({ max: 1 });
    await puller.ack([first.lease]);
    expect((await broker.publish('limit.reject', 'd')).offset).toBe(3);
    expect((await broker.request('POST', '/mmmq/messages', { topic: 'limit.reject', content: 'e' })).status).toBe(429);
  });

  it('leaves topics the consumer does not read alone', async () => {
    const puller = new PullClient(broker, 'narrow');
    await puller.register({ pattern: 'limit.narrow', maxBacklog: 1 });
    await broker.publish('limit.narrow', 'only');
    await subscribed(broker, 'narrow', 'limit.narrow');
    expect((await broker.request('POST', '/mmmq/messages', { topic: 'limit.narrow', content: 'x' })).status).toBe(429);
    expect((await broker.publishAll('limit.wide', ['1', '2', '3'])).length).toBe(3);
  });

  it('answers a stream publish with 429 and retryAfterSeconds, storing nothing, and fences the connection like a 5xx', async () => {
    const puller = new PullClient(broker, 'stream-reader');
    await puller.register({ pattern: 'limit.stream', maxBacklog: 1 });
    await broker.publish('limit.stream', 'first');
    await subscribed(broker, 'stream-reader', 'limit.stream');
    const client = StreamClient.connect(broker);
    try {
      client.send(1, { topic: 'limit.stream', content: 'second' });
      const refused = await client.answer(1);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ acknowledgement: 'NACK', retryAfterSeconds: 1 });
      expect(refused.body.message).toContain('consumer stream-reader');
      // Fenced, as after a 5xx: nothing sent after the refused request may land in front of its retry.
      client.send(2, { topic: 'limit.stream-other', content: 'later' });
      expect(await client.answer(2)).toMatchObject({
        status: 503,
        body: { message: expect.stringContaining('Not stored: an earlier publish') },
      });
    } finally {
      client.close();
    }
    const batchClient = StreamClient.connect(broker);
    try {
      batchClient.send(1, { messages: [{ topic: 'limit.stream', content: 'third' }] }, StreamRequestKind.PUBLISH_BATCH);
      expect(await batchClient.answer(1)).toMatchObject({ status: 429, body: { retryAfterSeconds: 1 } });
    } finally {
      batchClient.close();
    }
    expect((await broker.stored('limit.stream')).map((message) => message.content)).toEqual(['"first"']);
    expect(await broker.stored('limit.stream-other')).toEqual([]);
  });

  it('lets publishes through again when the dispatcher is updated without the limit', async () => {
    const puller = new PullClient(broker, 'lifted');
    await puller.register({ pattern: 'limit.lifted', maxBacklog: 1 });
    await broker.publish('limit.lifted', 'one');
    await subscribed(broker, 'lifted', 'limit.lifted');
    expect((await broker.request('POST', '/mmmq/messages', { topic: 'limit.lifted', content: 'two' })).status).toBe(429);
    const updated = await broker.request('PUT', '/mmmq/dispatchers/lifted', { pattern: 'limit.lifted' });
    expect(updated.status).toBe(200);
    expect(updated.body).not.toHaveProperty('maxBacklog');
    expect((await broker.publish('limit.lifted', 'two')).offset).toBe(1);
  });

  it('refuses an invalid limit with 400 naming the field, and shows a valid one', async () => {
    const invalid = await broker.request('POST', '/mmmq/dispatchers', { consumerId: 'bad', pattern: 'x', maxBacklog: 0 });
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toContain('maxBacklog must be an integer');
    const overflow = await broker.request('POST', '/mmmq/dispatchers', {
      consumerId: 'bad',
      pattern: 'x',
      maxBacklog: 5,
      backlogOverflow: 'block',
    });
    expect(overflow.status).toBe(400);
    expect(overflow.body.message).toContain('backlogOverflow must be');
    const shown = await broker.request('GET', '/mmmq/dispatchers/slow-reader');
    expect(shown.body).toMatchObject({ maxBacklog: 3, backlogOverflow: 'reject' });
  });
});

describe('a subscription backlog limit with backlogOverflow "dropOldest"', () => {
  let broker: BrokerApp;
  let rootDir: string;

  beforeAll(async () => {
    rootDir = await makeTempDir('mmmq-backlog-');
    broker = await startBroker({ persistence: { rootDir } });
  });
  afterAll(async () => {
    await broker.close();
    await removeTempDir(rootDir);
  });

  it('settles the oldest messages past the limit, counts them, and delivers the newest; publishers are never refused', async () => {
    const puller = new PullClient(broker, 'recent-only');
    await puller.register({ pattern: 'drop.basic', maxBacklog: 3, backlogOverflow: 'dropOldest' });
    await broker.publishAll('drop.basic', ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    await subscriptionReaches(broker, 'recent-only', 'drop.basic', (row) => row.position === 7, 'the cursor past the 7 oldest');
    const fetched = await puller.fetch({ max: 10 });
    expect(fetched.map((message) => message.offset)).toEqual([7, 8, 9]);
    await puller.ack(fetched.map((message) => message.lease));
    const { lag, stats } = await broker.subscription('recent-only', 'drop.basic');
    expect({ lag, backlogDropped: stats.backlogDropped, delivered: stats.delivered, deadLettered: stats.deadLettered }).toEqual({
      lag: 0,
      backlogDropped: 7,
      delivered: 3,
      deadLettered: 0,
    });
  });

  it('never drops a leased message: the consumer settles it, the others past the limit are dropped', async () => {
    const puller = new PullClient(broker, 'holder');
    await puller.register({ pattern: 'drop.leased', maxBacklog: 2, backlogOverflow: 'dropOldest' });
    await broker.publish('drop.leased', 'held');
    await subscribed(broker, 'holder', 'drop.leased');
    const [held] = await puller.fetch({ max: 1 });
    expect(held.offset).toBe(0);
    await broker.publishAll('drop.leased', ['1', '2', '3', '4', '5']);
    await subscriptionReaches(broker, 'holder', 'drop.leased', (row) => row.stats.backlogDropped === 3, 'offsets 1 to 3 dropped');
    expect((await puller.ack([held.lease])).settled).toBe(1);
    const rest = await puller.fetch({ max: 10 });
    expect(rest.map((message) => message.offset)).toEqual([4, 5]);
  });

  it('skips messages beyond the read window without delivering them, and the position survives a restart', async () => {
    const puller = new PullClient(broker, 'far-behind');
    await puller.register({ pattern: 'drop.far', maxBacklog: 5, backlogOverflow: 'dropOldest' });
    const total = MAX_WINDOW + 2 * BATCH;
    await publishMany(broker, 'drop.far', total);
    const row = await subscriptionReaches(
      broker,
      'far-behind',
      'drop.far',
      (entry) => entry.position === total - 5,
      'the cursor 5 behind the tail',
    );
    expect(row.stats.backlogDropped).toBe(total - 5);

    await broker.close();
    broker = await startBroker({ persistence: { rootDir } });
    await subscribed(broker, 'far-behind', 'drop.far');
    expect((await broker.subscription('far-behind', 'drop.far')).position).toBe(total - 5);
    const fetched = await new PullClient(broker, 'far-behind').fetch({ max: 100 });
    expect(fetched.map((message) => message.content)).toEqual([5, 4, 3, 2, 1].map((back) => `m-${total - back}`));
  });

  it('drops past the read window while a lease holds the cursor, and passes them all once it is settled', async () => {
    const puller = new PullClient(broker, 'held-far');
    await puller.register({ pattern: 'drop.held', maxBacklog: 5, backlogOverflow: 'dropOldest', ackTimeoutMs: 600_000 });
    await broker.publish('drop.held', 'held');
    await subscribed(broker, 'held-far', 'drop.held');
    const [held] = await puller.fetch({ max: 1 });
    const total = 1 + MAX_WINDOW + 2 * BATCH;
    await publishMany(broker, 'drop.held', total - 1);
    await subscriptionReaches(
      broker,
      'held-far',
      'drop.held',
      (row) => row.stats.backlogDropped === total - 6,
      'all but the held and 5 newest dropped',
    );
    expect((await broker.subscription('held-far', 'drop.held')).position).toBe(0);

    await puller.ack([held.lease]);
    await subscriptionReaches(broker, 'held-far', 'drop.held', (row) => row.position === total - 5, 'the cursor 5 behind the tail');
    await broker.close();
    broker = await startBroker({ persistence: { rootDir } });
    await subscribed(broker, 'held-far', 'drop.held');
    const fetched = await new PullClient(broker, 'held-far').fetch({ max: 100 });
    expect(fetched.map((message) => message.content)).toEqual([5, 4, 3, 2, 1].map((back) => `m-${total - 1 - back}`));
  });

  it('keeps a push consumer within the limit while a push hangs, and drops that one too once its push times out', async () => {
    const pushBroker = await startBroker({ delivery: { timeoutMs: 500, backoff: { initialMs: 50, maxMs: 100 } } });
    const consumer = new TestConsumer();
    await consumer.start();
    try {
      consumer.reply = (delivery) => (delivery.body.offset === 0 ? 'hang' : 'ACK');
      await pushBroker.addDispatcher('pushed-recent', consumer.url, 'drop.push', { maxBacklog: 2, backlogOverflow: 'dropOldest' });
      await pushBroker.publish('drop.push', 'first');
      await waitFor(() => consumer.received.length === 1, { message: 'the first push' });
      await pushBroker.publishAll('drop.push', ['1', '2', '3', '4']);
      await pushBroker.caughtUp('pushed-recent', 'drop.push');
      expect(consumer.received.map((push) => push.body.offset)).toEqual([0, 3, 4]);
      const { stats } = await pushBroker.subscription('pushed-recent', 'drop.push');
      expect({ backlogDropped: stats.backlogDropped, delivered: stats.delivered }).toEqual({ backlogDropped: 3, delivered: 2 });
    } finally {
      await consumer.stop();
      await pushBroker.close();
    }
  });
});

describe('a subscription backlog limit with backlogOverflow "deadLetter"', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(() => broker.close());

  it('dead-letters the oldest messages past the limit with reason BACKLOG_LIMIT, then delivers the newest', async () => {
    const puller = new PullClient(broker, 'dl-reader');
    await puller.register({ pattern: 'dl.basic', maxBacklog: 3, backlogOverflow: 'deadLetter' });
    await broker.publishAll('dl.basic', ['0', '1', '2', '3', '4', '5', '6', '7']);
    const row = await subscriptionReaches(
      broker,
      'dl-reader',
      'dl.basic',
      (entry) => entry.position === 5,
      'the cursor past 5 dead letters',
    );
    expect({ backlogDropped: row.stats.backlogDropped, deadLettered: row.stats.deadLettered }).toEqual({
      backlogDropped: 5,
      deadLettered: 5,
    });
    const letters = await broker.deadLetters('dl-reader');
    expect(
      letters.map((letter: any) => [letter.content, letter.headers['mmmq-dlq-reason'], letter.headers['mmmq-dlq-original-offset']]),
    ).toEqual([0, 1, 2, 3, 4].map((offset) => [String(offset), 'BACKLOG_LIMIT', offset]));
    const fetched = await puller.fetch({ max: 10 });
    expect(fetched.map((message) => message.offset)).toEqual([5, 6, 7]);
  });

  it('reads past the window to dead-letter everything over the limit, one bounded step at a time', async () => {
    await new PullClient(broker, 'dl-far').register({ pattern: 'dl.far', maxBacklog: 10, backlogOverflow: 'deadLetter' });
    const total = MAX_WINDOW + BATCH;
    await publishMany(broker, 'dl.far', total);
    const row = await subscriptionReaches(
      broker,
      'dl-far',
      'dl.far',
      (entry) => entry.position === total - 10,
      'the cursor 10 behind the tail',
    );
    expect(row.stats.deadLettered).toBe(total - 10);
    const dead = broker.topics.get('__dlq.dl-far');
    expect(dead?.tailOffset).toBe(total - 10);
  });
});

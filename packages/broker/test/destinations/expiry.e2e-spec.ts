import { TestConsumer, waitFor } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { FAST_BACKOFF } from '../delivery/delivery.fixture';
import { PullClient } from '../delivery/pull.fixture';

/** Long enough that nothing expires during a test unless it is meant to. */
const LONG_TTL_MS = 600_000;
/** Short enough to wait for (with a deadline, on the wall clock). */
const SHORT_TTL_MS = 300;

async function publish(broker: BrokerApp, message: Record<string, unknown>): Promise<{ id: string; offset: number }> {
  const response = await broker.request('POST', '/mmmq/messages', message);
  if (response.status !== 200) throw new Error(`publish failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** A new topic's subscriptions start right after its first publish is acknowledged. */
const subscribed = (broker: BrokerApp, consumerId: string, topic: string) =>
  waitFor(async () => (await broker.subscription(consumerId, topic)) !== undefined, {
    message: `${consumerId}'s subscription to ${topic}`,
  });

/** Waits until the wall clock is past `expiresAt` (what the broker compares). */
const passed = (expiresAt: number) => waitFor(() => Date.now() > expiresAt, { message: `the wall clock past ${expiresAt}` });

describe('message expiry', () => {
  let broker: BrokerApp;
  const consumer = new TestConsumer();

  beforeAll(async () => {
    await consumer.start();
    broker = await startBroker({
      delivery: FAST_BACKOFF,
      topics: {
        overrides: [
          { pattern: 'exp.default', expiry: { ttlMs: LONG_TTL_MS } },
          { pattern: 'exp.drop', expiry: { whenExpired: 'drop' } },
        ],
      },
    });
  });
  afterAll(async () => {
    await broker.close();
    await consumer.stop();
  });

  it('never lets a fetch have an expired message: it is dead-lettered with reason EXPIRED and counted', async () => {
    const puller = new PullClient(broker, 'exp-pull');
    await puller.register({ pattern: 'exp.pull' });
    const stale = await publish(broker, { topic: 'exp.pull', content: 'stale', expiresAt: Date.now() - 1000 });
    const short = await publish(broker, { topic: 'exp.pull', content: 'short', ttlMs: SHORT_TTL_MS });
    // Accepted (and so given its expiresAt) before the answer came.
    const shortExpiresBy = Date.now() + SHORT_TTL_MS;
    const live = await publish(broker, { topic: 'exp.pull', content: 'live', ttlMs: LONG_TTL_MS });
    await publish(broker, { topic: 'exp.pull', content: 'forever' });
    await passed(shortExpiresBy);
    await subscribed(broker, 'exp-pull', 'exp.pull');

    const fetched = await puller.fetch({ max: 10 });
    expect(fetched.map((message) => message.content)).toEqual(['live', 'forever']);
    expect(fetched[0].expiresAt! - fetched[0].publishedAt!).toBe(LONG_TTL_MS);
    expect(fetched[1]).not.toHaveProperty('expiresAt');
    await puller.ack(fetched.map((message) => message.lease));

    await waitFor(async () => (await broker.deadLetters('exp-pull')).length === 2, { message: 'two dead letters' });
    const letters = await broker.deadLetters('exp-pull');
    expect(letters.map((letter) => [letter.id, letter.content, letter.headers['mmmq-dlq-reason']])).toEqual([
      [stale.id, 'stale', 'EXPIRED'],
      [short.id, 'short', 'EXPIRED'],
    ]);
    expect(letters[0].headers['mmmq-dlq-attempts']).toBe(0);
    const { lag, stats } = await broker.subscription('exp-pull', 'exp.pull');
    expect({ lag, messagesExpired: stats.messagesExpired, expired: stats.expired, delivered: stats.delivered }).toEqual({
      lag: 0,
      messagesExpired: 2,
      expired: 0,
      delivered: 2,
    });
    expect(live.offset).toBe(2);
  });

  it('never pushes an expired message; with whenExpired "drop" it is settled without a dead letter', async () => {
    await broker.addDispatcher('exp-push', consumer.url, 'exp.drop');
    await publish(broker, { topic: 'exp.drop', content: 'gone', expiresAt: 1 });
    await publish(broker, { topic: 'exp.drop', content: 'kept', ttlMs: LONG_TTL_MS });
    await broker.caughtUp('exp-push', 'exp.drop');
    expect(consumer.received.filter((push) => push.consumerId === 'exp-push').map((push) => push.body.content)).toEqual(['kept']);
    const { stats } = await broker.subscription('exp-push', 'exp.drop');
    expect({ messagesExpired: stats.messagesExpired, deadLettered: stats.deadLettered }).toEqual({ messagesExpired: 1, deadLettered: 0 });
    expect(await broker.deadLetters('exp-push')).toEqual([]);
  });

  it("applies the topic's default time to live to a message without its own, and keeps a message's own", async () => {
    const first = await publish(broker, { topic: 'exp.default', content: 'default' });
    const second = await publish(broker, { topic: 'exp.default', content: 'own', ttlMs: 5000 });
    const puller = new PullClient(broker, 'exp-default');
    await puller.register({ pattern: 'exp.default' });
    await subscribed(broker, 'exp-default', 'exp.default');
    const fetched = await puller.fetch({ max: 2 });
    expect(fetched.map((message) => message.expiresAt! - message.publishedAt!)).toEqual([LONG_TTL_MS, 5000]);
    expect(fetched.map((message) => message.id)).toEqual([first.id, second.id]);
  });

  it('lets a message leased before it expires finish its delivery; released after, it is dead-lettered, not redelivered', async () => {
    const puller = new PullClient(broker, 'exp-flight');
    await puller.register({ pattern: 'exp.flight' });
    await publish(broker, { topic: 'exp.flight', content: 'acked late', ttlMs: SHORT_TTL_MS });
    await publish(broker, { topic: 'exp.flight', content: 'nacked late', ttlMs: SHORT_TTL_MS });
    await subscribed(broker, 'exp-flight', 'exp.flight');
    const fetched = await puller.fetch({ max: 2 });
    expect(fetched.map((message) => message.content)).toEqual(['acked late', 'nacked late']);
    await passed(Math.max(...fetched.map((message) => message.expiresAt!)));

    expect(await puller.ack([fetched[0].lease])).toMatchObject({ settled: 1, lost: [] });
    expect(await puller.nack([fetched[1].lease])).toMatchObject({ settled: 1, lost: [] });
    expect(await puller.fetch({ max: 2, waitMs: 0 })).toEqual([]);
    await waitFor(async () => (await broker.deadLetters('exp-flight')).length === 1, { message: 'the dead letter' });
    const [letter] = await broker.deadLetters('exp-flight');
    expect([letter.content, letter.headers['mmmq-dlq-reason'], letter.headers['mmmq-dlq-attempts']]).toEqual(['nacked late', 'EXPIRED', 1]);
    expect((await broker.subscription('exp-flight', 'exp.flight')).stats).toMatchObject({ delivered: 1, messagesExpired: 1 });
  });

  it('delivers a redriven EXPIRED dead letter again: the operator asked for it, it no longer expires', async () => {
    await broker.addDispatcher('exp-redrive', consumer.url, 'exp.redrive');
    const { id } = await publish(broker, { topic: 'exp.redrive', content: 'late', expiresAt: 1, priority: 7 });
    await waitFor(async () => (await broker.deadLetters('exp-redrive')).length === 1, { message: 'the dead letter' });
    const redriven = await broker.request('POST', '/mmmq/dead-letters/exp-redrive/redrive', { ids: [id] });
    expect(redriven).toMatchObject({ status: 200, body: { redriven: 1 } });
    await consumer.waitFor(() => consumer.received.some((push) => push.consumerId === 'exp-redrive'), { message: 'the redriven push' });
    const [push] = consumer.received.filter((delivery) => delivery.consumerId === 'exp-redrive');
    expect(push.body).toMatchObject({ id, content: 'late', priority: 7 });
    expect(push.body).not.toHaveProperty('expiresAt');
    expect(push.body.headers['mmmq-dlq-reason']).toBe('EXPIRED');
  });

  it.each([
    [{ ttlMs: 0 }, /"ttlMs" must be a positive integer/],
    [{ expiresAt: 'soon' }, /"expiresAt" must be a positive integer/],
    [{ ttlMs: 100, expiresAt: 1_900_000_000_000 }, /"ttlMs" and "expiresAt" cannot both be given/],
  ])('refuses %j with 400 naming the field, storing nothing', async (fields, message) => {
    const single = await broker.request('POST', '/mmmq/messages', { topic: 'exp.bad', content: 1, ...fields });
    expect(single.status).toBe(400);
    expect(single.body.message).toMatch(message);
    const batch = await broker.request('POST', '/mmmq/messages/batch', {
      messages: [
        { topic: 'exp.bad', content: 1 },
        { topic: 'exp.bad', content: 2, ...fields },
      ],
    });
    expect(batch.status).toBe(400);
    expect(batch.body.message).toMatch(/^messages\[1\]: /);
    expect(await broker.stored('exp.bad')).toEqual([]);
  });
});

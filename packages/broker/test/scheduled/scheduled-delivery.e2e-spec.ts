import { TestConsumer, waitFor } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { FAST_BACKOFF } from '../delivery/delivery.fixture';
import { PullClient } from '../delivery/pull.fixture';

/** Far enough ahead that nothing scheduled so is delivered while a test runs. */
const LATER_MS = 600_000;
/** Near enough to wait for. */
const SOON_MS = 700;

async function publish(broker: BrokerApp, message: Record<string, unknown>): Promise<{ id: string; offset: number }> {
  const response = await broker.request('POST', '/mmmq/messages', message);
  if (response.status !== 200) throw new Error(`publish failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

const subscribed = (broker: BrokerApp, consumerId: string, topic: string) =>
  waitFor(async () => (await broker.subscription(consumerId, topic)) !== undefined, {
    message: `${consumerId}'s subscription to ${topic}`,
  });

describe('scheduled messages (delayMs, deliverAt)', () => {
  let broker: BrokerApp;
  const consumer = new TestConsumer();

  beforeAll(async () => {
    await consumer.start();
    broker = await startBroker({ delivery: FAST_BACKOFF, limits: { maxDelayMs: 2 * LATER_MS } });
  });
  afterAll(async () => {
    await broker.close();
    await consumer.stop();
  });

  it('hands a pull consumer a delayed message only once due, and the messages after it at once', async () => {
    const puller = new PullClient(broker, 'sched-pull');
    await puller.register({ pattern: 'sched.pull' });
    const publishedAt = Date.now();
    const delayed = await publish(broker, { topic: 'sched.pull', content: 'delayed', delayMs: SOON_MS });
    await publish(broker, { topic: 'sched.pull', content: 'now' });
    await subscribed(broker, 'sched-pull', 'sched.pull');

    const first = await puller.fetch({ max: 10 });
    expect(first.map((message) => message.content)).toEqual(['now']);
    await puller.ack(first.map((message) => message.lease));
    // Waiting: shown as scheduled, not in the lag.
    await waitFor(async () => (await broker.subscription('sched-pull', 'sched.pull')).lag === 0, { message: 'the lag without it' });
    expect((await broker.subscription('sched-pull', 'sched.pull')).scheduled).toBe(1);

    const due: Array<{ content: unknown; at: number; lease: string; id: string }> = [];
    await waitFor(
      async () => {
        const fetched = await puller.fetch({ max: 10, waitMs: 200 });
        due.push(...fetched.map((message) => ({ content: message.content, at: Date.now(), lease: message.lease, id: message.id! })));
        return due.length > 0;
      },
      { message: 'the delayed message once due' },
    );
    expect(due.map((message) => [message.id, message.content])).toEqual([[delayed.id, 'delayed']]);
    expect(due[0].at).toBeGreaterThanOrEqual(publishedAt + SOON_MS);
    // Due and leased: in the lag again, no longer scheduled.
    expect(await broker.subscription('sched-pull', 'sched.pull')).toMatchObject({ lag: 1, scheduled: 0, leased: 1 });
    await puller.ack(due.map((message) => message.lease));
    await waitFor(async () => (await broker.subscription('sched-pull', 'sched.pull')).lag === 0, { message: 'nothing left' });
  });

  it('pushes a message scheduled with deliverAt at its time, in order of due time, not of publish', async () => {
    await broker.addDispatcher('sched-push', consumer.url, 'sched.push');
    const base = Date.now();
    await publish(broker, { topic: 'sched.push', content: 'second', deliverAt: new Date(base + 2 * SOON_MS).toISOString() });
    await publish(broker, { topic: 'sched.push', content: 'first', deliverAt: new Date(base + SOON_MS).toISOString() });
    await publish(broker, { topic: 'sched.push', content: 'never', delayMs: LATER_MS });
    await waitFor(() => consumer.received.filter((d) => d.consumerId === 'sched-push').length >= 2, {
      message: 'both due messages pushed',
    });
    const pushed = consumer.received.filter((d) => d.consumerId === 'sched-push');
    expect(pushed.map((d) => d.body.content)).toEqual(['first', 'second']);
    expect(pushed[0].at).toBeGreaterThanOrEqual(base + SOON_MS);
    expect(pushed[1].at).toBeGreaterThanOrEqual(base + 2 * SOON_MS);
  });

  it('counts a time to live from the due time, not from the publish', async () => {
    const puller = new PullClient(broker, 'sched-ttl');
    await puller.register({ pattern: 'sched.ttl' });
    await publish(broker, { topic: 'sched.ttl', content: 'lives', delayMs: SOON_MS, ttlMs: SOON_MS });
    await subscribed(broker, 'sched-ttl', 'sched.ttl');
    const fetched: unknown[] = [];
    await waitFor(
      async () => {
        fetched.push(...(await puller.fetch({ max: 10, waitMs: 200 })).map((message) => message.content));
        return fetched.length > 0;
      },
      { message: 'the scheduled message, not expired' },
    );
    expect(fetched).toEqual(['lives']);
  });

  it('cancels a scheduled message by id before its time: it is never delivered, and a late or wrong cancel is refused', async () => {
    const puller = new PullClient(broker, 'sched-cancel');
    await puller.register({ pattern: 'sched.cancel' });
    const kept = await publish(broker, { topic: 'sched.cancel', id: 'kept', content: 'kept', delayMs: SOON_MS });
    await publish(broker, { topic: 'sched.cancel', id: 'dropped', content: 'dropped', delayMs: SOON_MS });
    await publish(broker, { topic: 'sched.cancel', id: 'plain', content: 'plain' });
    const cancel = (body: Record<string, unknown>) => broker.request('POST', '/mmmq/scheduled/cancel', body);

    const cancelled = await cancel({ topic: 'sched.cancel', id: 'dropped' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.cancelled).toMatchObject({ topic: 'sched.cancel', id: 'dropped', offset: 1 });
    expect((await cancel({ topic: 'sched.cancel', id: 'plain' })).status).toBe(409);
    expect((await cancel({ topic: 'sched.cancel', id: 'nobody' })).status).toBe(404);
    expect((await cancel({ topic: 'sched.cancel', id: 'kept', offset: 1 })).status).toBe(404);
    expect((await cancel({ topic: 'sched.nothing', id: 'kept' })).status).toBe(404);
    expect((await cancel({ topic: 'sched.cancel', id: 'kept', colour: 'red' })).status).toBe(400);

    await subscribed(broker, 'sched-cancel', 'sched.cancel');
    const contents: unknown[] = [];
    await waitFor(
      async () => {
        const fetched = await puller.fetch({ max: 10, waitMs: 200 });
        contents.push(...fetched.map((message) => message.content));
        if (fetched.length > 0) await puller.ack(fetched.map((message) => message.lease));
        return contents.includes('kept');
      },
      { message: 'the message not cancelled, once due' },
    );
    expect(contents).toEqual(['plain', 'kept']);
    const late = await cancel({ topic: 'sched.cancel', id: 'kept', offset: kept.offset });
    expect(late.status).toBe(409);
    expect(late.body.message).toContain('too late to cancel');
    const page = await broker.request('GET', '/mmmq/topics/sched.cancel/messages');
    expect(
      page.body.messages.map((m: { id: string; dueAt?: number; cancels?: number }) => [m.id, m.dueAt !== undefined, m.cancels]),
    ).toEqual([
      ['kept', true, undefined],
      ['dropped', true, undefined],
      ['plain', false, undefined],
      [expect.stringMatching(/^mmmq-cancel-/), false, 1],
    ]);
  });

  it('never delivers a cancelled message to a consumer that reads the log only after its time, past the cancellation', async () => {
    const puller = new PullClient(broker, 'sched-late-reader');
    await puller.register({ pattern: 'sched.late' });
    const dueAt = Date.now() + SOON_MS;
    await publish(broker, { topic: 'sched.late', id: 'cancelled', content: 'cancelled', deliverAt: new Date(dueAt).toISOString() });
    // Messages between it and its cancellation: the subscription reads only as far as its fetches need.
    const batch = Array.from({ length: 100 }, (_, n) => ({ topic: 'sched.late', content: n }));
    expect((await broker.request('POST', '/mmmq/messages/batch', { messages: batch })).status).toBe(200);
    expect((await broker.request('POST', '/mmmq/scheduled/cancel', { topic: 'sched.late', id: 'cancelled' })).status).toBe(200);
    await subscribed(broker, 'sched-late-reader', 'sched.late');
    await waitFor(() => Date.now() > dueAt, { message: 'the cancelled message to be due' });

    const contents: unknown[] = [];
    await waitFor(
      async () => {
        const fetched = await puller.fetch({ max: 1, waitMs: 100 });
        contents.push(...fetched.map((message) => message.content));
        if (fetched.length > 0) await puller.ack(fetched.map((message) => message.lease));
        return contents.includes(batch.length - 1);
      },
      { message: 'the messages not cancelled' },
    );
    expect(await puller.fetch({ max: 10, waitMs: 100 })).toEqual([]);
    expect(contents).toEqual(batch.map((message) => message.content));
  });

  it.each([
    [{ delayMs: -1 }, '"delayMs" must be a non-negative integer'],
    [{ delayMs: 1.5 }, '"delayMs" must be a non-negative integer'],
    [{ deliverAt: 'tomorrow' }, '"deliverAt" must be an ISO 8601 time'],
    [{ deliverAt: '2026-12-24T18:00:00' }, '"deliverAt" must be an ISO 8601 time'],
    [{ delayMs: 10, deliverAt: '2026-12-24T18:00:00Z' }, 'cannot both be given'],
    [{ delayMs: 3 * LATER_MS }, 'limits.maxDelayMs'],
    [{ delayMs: LATER_MS, expiresAt: Date.now() + 1000 }, 'could never be delivered'],
  ])('refuses %j with a 400 that stores nothing and creates no topic', async (fields, error) => {
    const response = await broker.request('POST', '/mmmq/messages', { topic: 'sched.refused', content: 1, ...fields });
    expect(response.status).toBe(400);
    expect(response.body.message).toContain(error);
    const batch = await broker.request('POST', '/mmmq/messages/batch', {
      messages: [
        { topic: 'sched.refused', content: 0 },
        { topic: 'sched.refused', content: 1, ...fields },
      ],
    });
    expect(batch.status).toBe(400);
    expect(batch.body.message).toContain(`messages[1]: `);
    expect((await broker.request('GET', '/mmmq/topics/sched.refused')).status).toBe(404);
  });
});

import { TestConsumer } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { publishAll, range } from './delivery.fixture';
import { Fetched, PullClient, waitUntil } from './pull.fixture';

/** Replay and seek over HTTP, as any client would use it. */
describe('seeking a subscription', () => {
  let broker: BrokerApp;
  let consumer: PullClient;
  let id = 0;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(() => broker.close());
  beforeEach(() => {
    consumer = new PullClient(broker, `seeker-${++id}`);
  });

  const topicOf = (suffix = '') => `order.s${id}${suffix}`;

  /** Registers the consumer for this test's topics, publishes `count` messages to `topic` and waits for the subscription. */
  const setUp = async (count: number, settings: Record<string, unknown> = {}, topic = topicOf()) => {
    await consumer.register({ pattern: `${topicOf()}*`, ...settings });
    await publishAll(
      broker,
      topic,
      range(count).map((n) => ({ n })),
    );
    await subscribed(topic);
    return topic;
  };

  const subscribed = (topic: string) =>
    waitUntil(async () => {
      const { body } = await broker.request('GET', '/mmmq/subscriptions');
      return body.some((row: { topic: string; consumerId: string }) => row.topic === topic && row.consumerId === consumer.consumerId);
    }, `the subscription to ${topic}`);

  /** Fetches and acknowledges until `count` messages came (failing at the deadline), returning them. */
  const consume = async (count: number, member?: string): Promise<Fetched[]> => {
    const got: Fetched[] = [];
    await waitUntil(async () => {
      const fetched = await consumer.fetch({ max: 100, ...(member === undefined ? {} : { member }) });
      if (fetched.length > 0) await consumer.ack(fetched.map(({ lease }) => lease));
      got.push(...fetched);
      return got.length >= count;
    }, `${count} messages to be fetched (got ${got.length})`);
    return got;
  };

  const contents = (messages: Fetched[]) => messages.map(({ content }) => (content as { n: number }).n);

  const position = async (topic: string) => {
    const { body } = await broker.request('GET', '/mmmq/subscriptions');
    return body.find((row: { topic: string; consumerId: string }) => row.topic === topic && row.consumerId === consumer.consumerId)
      .position as number;
  };

  it('seeks back to a time: exactly the messages published from then on are delivered again, marked redelivered', async () => {
    const topic = await setUp(5);
    const early = await consume(5);
    // A time after every early message's publish, and the later ones published once the clock has passed it.
    const since = Math.max(...early.map(({ publishedAt }) => publishedAt as number)) + 1;
    await waitUntil(() => Date.now() > since, 'the clock to pass the early messages');
    const late = await publishAll(
      broker,
      topic,
      range(4).map((n) => ({ n: 100 + n })),
    );
    expect(contents(await consume(4))).toEqual([100, 101, 102, 103]);

    const to = { time: new Date(since).toISOString() };
    const dry = await consumer.seek({ to, dryRun: true });
    expect(dry).toMatchObject({ status: 200, body: { dryRun: true, redeliver: 4, skip: 0 } });
    expect(await position(topic)).toBe(9);

    const moved = await consumer.seek({ to });
    expect(moved).toMatchObject({ status: 200, body: { dryRun: false, redeliver: 4, skip: 0, released: 0 } });
    expect(moved.body.subscriptions).toEqual([{ topic, from: 9, to: late[0], redeliver: 4, skip: 0, released: 0 }]);
    const { body: rows } = await broker.request('GET', '/mmmq/subscriptions');
    expect(rows.find((row: { consumerId: string }) => row.consumerId === consumer.consumerId).stats).toMatchObject({
      seeks: 1,
      lastSeek: { from: 9, to: late[0], at: expect.any(String) },
    });
    const again = await consume(4);
    expect(contents(again)).toEqual([100, 101, 102, 103]);
    expect(again.every(({ redelivered }) => redelivered)).toBe(true);
    expect(await consumer.fetch({ waitMs: 50 })).toEqual([]);
  });

  it('seeks to the end: what was not consumed is skipped, what is published next is delivered', async () => {
    const topic = await setUp(6);
    const dry = await consumer.seek({ to: 'end', dryRun: true });
    expect(dry.body).toMatchObject({ redeliver: 0, skip: 6 });
    expect(await position(topic)).toBe(0);

    expect((await consumer.seek({ to: 'end' })).body).toMatchObject({ skip: 6, subscriptions: [{ topic, from: 0, to: 6 }] });
    expect(await consumer.fetch({ waitMs: 50 })).toEqual([]);
    await publishAll(broker, topic, [{ n: 'next' }]);
    expect((await consume(1)).map(({ content, offset }) => [content, offset])).toEqual([[{ n: 'next' }, 6]]);
  });

  it('a dry run changes nothing: the same messages are delivered, with their leases', async () => {
    await setUp(3);
    const [held] = await consumer.fetch({ max: 1 });
    const dry = await consumer.seek({ to: 'end', dryRun: true });
    expect(dry.body).toMatchObject({ dryRun: true, skip: 3, released: 1 });
    expect(contents(await consume(2))).toEqual([1, 2]);
    expect(await consumer.ack([held.lease])).toEqual({ settled: 1, lost: [] });
  });

  it('ends the leases it passes: their acks are lost, and a seek back delivers them again', async () => {
    const topic = await setUp(4);
    const leased = await consumer.fetch({ max: 4 });
    expect((await consumer.seek({ to: { offset: 2 } })).body).toMatchObject({ skip: 2, released: 4 });
    expect(await consumer.ack(leased.map(({ lease }) => lease))).toMatchObject({ settled: 0 });
    expect(contents(await consume(2))).toEqual([2, 3]);
    expect((await consumer.seek({ topic, to: 'beginning' })).body).toMatchObject({ redeliver: 4, skip: 0 });
    expect(contents(await consume(4))).toEqual([0, 1, 2, 3]);
  });

  it('moves one topic when named, every topic of the consumer when not', async () => {
    const first = await setUp(3);
    const second = await setUp(2, {}, topicOf('b'));
    await consume(5);
    expect((await consumer.seek({ topic: second, to: { offset: 1 } })).body.subscriptions).toEqual([
      { topic: second, from: 2, to: 1, redeliver: 1, skip: 0, released: 0 },
    ]);
    expect(contents(await consume(1))).toEqual([1]);
    const all = await consumer.seek({ to: 'beginning' });
    expect(all.body.redeliver).toBe(5);
    expect(all.body.subscriptions.map(({ topic }: { topic: string }) => topic).sort()).toEqual([first, second].sort());
  });

  it('is refused while another member holds the exclusive subscription, unless that member asks or it is forced', async () => {
    const topic = await setUp(3, { exclusive: true, ackTimeoutMs: 60_000 });
    expect(contents(await consume(3, 'holder'))).toEqual([0, 1, 2]);
    const refused = await consumer.seek({ to: 'beginning' });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/exclusive and member holder receives from it/);
    expect((await consumer.seek({ to: 'beginning', member: 'other' })).status).toBe(409);
    expect(await position(topic)).toBe(3);

    expect((await consumer.seek({ to: { offset: 2 }, member: 'holder' })).body).toMatchObject({ redeliver: 1 });
    expect(contents(await consume(1, 'holder'))).toEqual([2]);
    expect((await consumer.seek({ to: 'beginning', force: true })).body).toMatchObject({ redeliver: 3 });
    expect(contents(await consume(3, 'holder'))).toEqual([0, 1, 2]);
  });

  it('refuses to move an exclusive push consumer under its host unless forced; forced, the host receives the replay', async () => {
    const host = new TestConsumer();
    await host.start();
    try {
      const topic = topicOf();
      await consumer.register({ pattern: topic, host: host.url, exclusive: true });
      await publishAll(broker, topic, [{ n: 0 }, { n: 1 }]);
      await host.waitFor(() => host.received.length === 2, { message: 'the two pushes' });
      await waitUntil(async () => (await position(topic)) === 2, 'the pushes to be settled');

      const refused = await consumer.seek({ to: 'beginning' });
      expect(refused).toMatchObject({ status: 409, body: { message: expect.stringContaining(`member ${host.url} receives from it`) } });
      expect((await consumer.seek({ to: 'beginning', force: true })).body).toMatchObject({ redeliver: 2 });
      await host.waitFor(() => host.received.length === 4, { message: 'the two pushes again' });
      expect(host.received.slice(2).map(({ body }) => [body.content, body.redelivered])).toEqual([
        [{ n: 0 }, true],
        [{ n: 1 }, true],
      ]);
    } finally {
      await host.stop();
    }
  });

  it('starts a new consumer at a time with `startFrom: {time}`: the first message published at or after it', async () => {
    const topic = await setUp(3);
    const early = await consume(3);
    const since = Math.max(...early.map(({ publishedAt }) => publishedAt as number)) + 1;
    await waitUntil(() => Date.now() > since, 'the clock to pass the early messages');
    await publishAll(broker, topic, [{ n: 'late' }]);
    const latecomer = new PullClient(broker, `${consumer.consumerId}-late`);
    await latecomer.register({ pattern: topic, startFrom: { time: new Date(since).toISOString() } });
    let got: Fetched[] = [];
    await waitUntil(async () => (got = await latecomer.fetch({ max: 10 })).length > 0, 'the latecomer to fetch');
    expect(got.map(({ content, offset }) => [content, offset])).toEqual([[{ n: 'late' }, 3]]);
    const { body } = await broker.request('GET', `/mmmq/dispatchers/${latecomer.consumerId}`);
    expect(body.startFrom).toEqual({ time: new Date(since).toISOString() });
    const refused = await broker.request('POST', '/mmmq/dispatchers', {
      consumerId: 'bad-start',
      pattern: topic,
      startFrom: { time: 'now' },
    });
    expect(refused).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/startFrom must be "earliest", "latest" or \{"time"/) },
    });
  });

  it('answers 400 for a position it cannot read, 404 for a topic the consumer does not read', async () => {
    await setUp(1);
    for (const to of [
      undefined,
      'start',
      { offset: -1 },
      { time: '2026-12-07 10:00' },
      { time: '2026-12-07T10:00:00' },
      { offset: 1, time: 'x' },
    ]) {
      const answer = await consumer.seek({ to });
      expect([JSON.stringify(to), answer.status]).toEqual([JSON.stringify(to), 400]);
    }
    expect((await consumer.seek({ to: 'end', dryRun: 'yes' })).status).toBe(400);
    const unknown = await consumer.seek({ topic: 'invoice.x', to: 'end' });
    expect(unknown).toMatchObject({ status: 404, body: { message: expect.stringMatching(/no subscription to topic 'invoice.x'/) } });
    expect((await broker.request('POST', '/mmmq/consumers/nobody/seek', { to: 'end' })).status).toBe(404);
  });
});

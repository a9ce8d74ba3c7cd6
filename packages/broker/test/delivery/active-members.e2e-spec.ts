import { TestConsumer, waitFor } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { FAST_BACKOFF, range } from './delivery.fixture';
import { PullClient, waitUntil } from './pull.fixture';

describe('maxActiveMembers and maxMembers over HTTP', () => {
  let broker: BrokerApp;
  let id = 0;
  const hosts: TestConsumer[] = [];

  beforeAll(async () => {
    broker = await startBroker({ delivery: FAST_BACKOFF });
  });
  afterAll(() => broker.close());
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.stop()));
  });

  const started = async (count: number): Promise<TestConsumer[]> => {
    const made = range(count).map(() => new TestConsumer());
    for (const host of made) await host.start();
    hosts.push(...made);
    return made;
  };
  const register = (body: Record<string, unknown>) => broker.request('POST', '/mmmq/dispatchers', body);
  const activeMembers = async (consumerId: string, topic: string): Promise<string[] | undefined> =>
    (await broker.subscription(consumerId, topic))?.activeMembers;

  it('pushes only to the first two of four hosts; when one leaves or fails, the earliest backup takes its place', async () => {
    const consumerId = `active-push-${++id}`;
    const topic = `order.push${id}`;
    const [a, b, c, d] = await started(4);
    const settings = { consumerId, pattern: topic, maxActiveMembers: 2, ackTimeoutMs: 1000 };
    for (const host of [a, b, c, d]) expect((await register({ ...settings, host: host.url })).status).toBe(host === a ? 201 : 200);

    await broker.publishAll(
      topic,
      range(40).map((n) => ({ n })),
    );
    await broker.caughtUp(consumerId, topic);
    expect(a.received.length + b.received.length).toBe(40);
    expect([a.received.length > 0, b.received.length > 0, c.received.length, d.received.length]).toEqual([true, true, 0, 0]);
    expect(await activeMembers(consumerId, topic)).toEqual([a.url, b.url]);

    // a leaves (removed as a host): c, the earliest backup, takes its place at once.
    expect((await broker.request('DELETE', `/mmmq/dispatchers/${consumerId}/hosts/${encodeURIComponent(a.url)}`)).status).toBe(204);
    const before = new Map([b, c, d].map((host) => [host, host.received.length]));
    await broker.publishAll(
      topic,
      range(40).map((n) => ({ n: 40 + n })),
    );
    await broker.caughtUp(consumerId, topic);
    expect(await activeMembers(consumerId, topic)).toEqual([b.url, c.url]);
    expect(c.received.length).toBeGreaterThan(0);
    expect(d.received.length).toBe(before.get(d));

    // b fails (stopped): once its pushes have failed for a lease period, d takes its place; nothing is lost.
    await b.stop();
    await broker.publishAll(
      topic,
      range(40).map((n) => ({ n: 80 + n })),
    );
    await waitFor(async () => (await activeMembers(consumerId, topic))?.join() === [c.url, d.url].join(), {
      message: 'd to take the place of the failed b',
      deadlineMs: 15_000,
    });
    await broker.caughtUp(consumerId, topic);
    await broker.publishAll(
      topic,
      range(40).map((n) => ({ n: 120 + n })),
    );
    await broker.caughtUp(consumerId, topic);
    const delivered = new Set([a, b, c, d].flatMap((host) => host.contents().map((content) => (content as { n: number }).n)));
    expect(delivered.size).toBe(160);
    expect(d.received.length).toBeGreaterThan(0);
  }, 60_000);

  it('lets the first two pull members receive and the others wait; a silent active member is replaced by the earliest backup', async () => {
    const consumer = new PullClient(broker, `active-pull-${++id}`);
    const topic = `order.pull${id}`;
    await consumer.register({ pattern: topic, maxActiveMembers: 2, ackTimeoutMs: 1000 });
    await broker.publishAll(
      topic,
      range(500).map((n) => ({ n })),
    );
    await waitUntil(async () => (await broker.subscription(consumer.consumerId, topic)) !== undefined, 'the subscription');
    const fetchAck = async (member: string, max = 2) => {
      const fetched = await consumer.fetch({ max, member });
      if (fetched.length > 0) await consumer.ack(fetched.map((message) => message.lease));
      return fetched.length;
    };
    // Join order: a, b, c, d.
    expect([await fetchAck('a'), await fetchAck('b'), await fetchAck('c'), await fetchAck('d')]).toEqual([2, 2, 0, 0]);
    expect(await activeMembers(consumer.consumerId, topic)).toEqual(['a', 'b']);

    // a falls silent; b, c and d go on fetching. After a lease period c (joined before d) receives, d still does not.
    const counts = { b: 0, c: 0, d: 0 };
    await waitFor(
      async () => {
        counts.b += await fetchAck('b', 1);
        counts.c += await fetchAck('c', 1);
        counts.d += await fetchAck('d', 1);
        return counts.c > 0;
      },
      { message: () => `c to take the place of the silent a; fetched ${JSON.stringify(counts)}`, deadlineMs: 10_000 },
    );
    expect(counts.d).toBe(0);
    expect(await activeMembers(consumer.consumerId, topic)).toEqual(['b', 'c']);
    // a comes back: it joins again at the end, as a backup.
    expect(await fetchAck('a')).toBe(0);
  }, 30_000);

  it('refuses a member beyond maxMembers with 409 naming the option, and a fetch without a member name with 400', async () => {
    const consumerId = `capped-${++id}`;
    const topic = `order.cap${id}`;
    const [host, other] = await started(2);
    expect((await register({ consumerId, pattern: topic, host: host.url, maxMembers: 2 })).status).toBe(201);
    await broker.publishAll(topic, [{ n: 0 }]);
    await waitUntil(async () => (await broker.subscription(consumerId, topic)) !== undefined, 'the subscription');
    const fetch = (body: Record<string, unknown>) => broker.request('POST', `/mmmq/consumers/${consumerId}/fetch`, body);

    expect((await fetch({ member: 'a' })).status).toBe(200);
    const refused = await fetch({ member: 'b' });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/maxMembers is 2 and 2 member\(s\) are in .*member b is refused/);
    const joining = await register({ consumerId, pattern: topic, host: other.url, maxMembers: 2 });
    expect(joining.status).toBe(409);
    expect(joining.body.message).toMatch(/maxMembers is 2/);
    const anonymous = await fetch({});
    expect(anonymous.status).toBe(400);
    expect(anonymous.body.message).toMatch(/member is required/);
  });

  it('takes exclusive: true as maxActiveMembers 1 and refuses the two set inconsistently, naming them', async () => {
    const consumerId = `exclusive-${++id}`;
    const created = await register({ consumerId, pattern: `order.x${id}`, exclusive: true });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ exclusive: true, maxActiveMembers: 1 });
    const both = await register({ consumerId: `${consumerId}-b`, pattern: 'order.y', exclusive: true, maxActiveMembers: 3 });
    expect(both.status).toBe(400);
    expect(both.body.message).toMatch(/exclusive: true means maxActiveMembers 1, got maxActiveMembers 3/);
    const tooFew = await register({ consumerId: `${consumerId}-c`, pattern: 'order.y', maxActiveMembers: 3, maxMembers: 2 });
    expect(tooFew.status).toBe(400);
    expect(tooFew.body.message).toMatch(/maxMembers \(2\) must be at least maxActiveMembers \(3\)/);
    const zero = await register({ consumerId: `${consumerId}-d`, pattern: 'order.y', maxActiveMembers: 0 });
    expect(zero.status).toBe(400);
    expect(zero.body.message).toMatch(/maxActiveMembers must be an integer from 1/);
  });
});

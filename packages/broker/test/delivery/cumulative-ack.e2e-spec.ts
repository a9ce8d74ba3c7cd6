import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { publishAll, range } from './delivery.fixture';
import { Fetched, PullClient, waitUntil } from './pull.fixture';

/** Acknowledging everything up to an offset in one call (JMS CLIENT_ACKNOWLEDGE). */
describe('a cumulative ack (`upTo`)', () => {
  let broker: BrokerApp;
  let consumer: PullClient;
  let id = 0;

  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(() => broker.close());
  beforeEach(() => {
    consumer = new PullClient(broker, `cumulative-${++id}`);
  });

  const setUp = async (count: number) => {
    const topic = `order.c${id}`;
    await consumer.register({ pattern: topic });
    await publishAll(
      broker,
      topic,
      range(count).map((n) => ({ n })),
    );
    return topic;
  };

  /** Fetches until `count` messages are leased (failing at the deadline). */
  const lease = async (count: number, member?: string): Promise<Fetched[]> => {
    const got: Fetched[] = [];
    await waitUntil(async () => {
      got.push(...(await consumer.fetch({ max: count - got.length, ...(member === undefined ? {} : { member }) })));
      return got.length >= count;
    }, `${count} messages to be leased (got ${got.length})`);
    return got;
  };

  const position = async (topic: string) => {
    const { body } = await broker.request('GET', '/mmmq/subscriptions');
    return body.find((row: { topic: string; consumerId: string }) => row.topic === topic && row.consumerId === consumer.consumerId)
      .position as number;
  };

  it('settles every leased message at or below the offset in one durable call; the others stay leased', async () => {
    const topic = await setUp(10);
    const leased = await lease(10);
    expect(await consumer.ackUpTo(topic, 6)).toEqual({ settled: 7, lost: [] });
    expect(await position(topic)).toBe(7);
    // Acknowledged already: an ack of one of them by its lease finds nothing.
    expect(await consumer.ack([leased[3].lease])).toEqual({ settled: 0, lost: [leased[3].lease] });
    expect(await consumer.ack(leased.slice(7).map(({ lease: token }) => token))).toEqual({ settled: 3, lost: [] });
    expect(await position(topic)).toBe(10);
  });

  it('leaves what is not leased: an offset past the fetched ones acknowledges only those fetched', async () => {
    const topic = await setUp(6);
    await lease(3);
    expect(await consumer.ackUpTo(topic, 5)).toEqual({ settled: 3, lost: [] });
    const rest = await lease(3);
    expect(rest.map(({ offset }) => offset)).toEqual([3, 4, 5]);
  });

  it("with `member`, settles only that member's leases", async () => {
    const topic = await setUp(4);
    const first = await lease(2, 'worker-a');
    const second = await lease(2, 'worker-b');
    expect(await consumer.ackUpTo(topic, 3, 'worker-a')).toEqual({ settled: 2, lost: [] });
    expect(await consumer.ack(first.map(({ lease: token }) => token))).toMatchObject({ settled: 0 });
    expect(await consumer.ack(second.map(({ lease: token }) => token))).toEqual({ settled: 2, lost: [] });
  });

  it('counts a lease named both by `leases` and `upTo` once, as settled', async () => {
    const topic = await setUp(3);
    const leased = await lease(3);
    const { status, body } = await broker.request('POST', `/mmmq/consumers/${consumer.consumerId}/ack`, {
      leases: [leased[1].lease],
      upTo: { topic, offset: 2 },
    });
    expect({ status, body }).toEqual({ status: 200, body: { settled: 3, lost: [] } });
  });

  it('answers 400 for a malformed `upTo` and 404 for a topic the consumer does not read', async () => {
    await setUp(1);
    const ack = (body: unknown) => broker.request('POST', `/mmmq/consumers/${consumer.consumerId}/ack`, body);
    for (const upTo of [
      { topic: `order.c${id}` },
      { topic: `order.c${id}`, offset: -1 },
      { offset: 1 },
      { topic: 'x', offset: 1, all: true },
    ]) {
      expect([upTo, (await ack({ upTo })).status]).toEqual([upTo, 400]);
    }
    expect(await ack({ upTo: { topic: 'invoice.none', offset: 1 } })).toMatchObject({
      status: 404,
      body: { message: expect.stringMatching(/no subscription to topic 'invoice.none'/) },
    });
  });
});

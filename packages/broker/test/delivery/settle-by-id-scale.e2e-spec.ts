import { longestTurn } from '@mmmq/test-support';
import { BrokerApp, startBroker } from '../http/broker-app.fixture';
import { range } from './delivery.fixture';
import { Fetched, PullClient } from './pull.fixture';

/** Leased messages, and unknown ids in one settle request: the most a request may name. */
const LEASED = 10_000;
/**
 * The most CPU time one turn of the event loop may take while one such request is handled. Scanning every leased slot
 * per item took 2.1–2.7 s; a lookup per item takes a few ms. CPU time, not wall time: a busy machine stretches the
 * gaps between turns without the broker doing more work in them.
 */
const STALL_BOUND_MS = 500;

async function publishMany(broker: BrokerApp, topic: string, count: number): Promise<void> {
  for (let from = 0; from < count; from += 1000) {
    const messages = range(Math.min(1000, count - from), from).map((n) => ({ topic, content: { n }, id: `${topic}-${n}` }));
    const response = await broker.request('POST', '/mmmq/messages/batch', { messages });
    if (response.status !== 200) throw new Error(`publish failed: ${response.status} ${JSON.stringify(response.body)}`);
  }
}

/** Runs `work` and returns the most CPU time one turn of the event loop took meanwhile, in ms. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  return (await longestTurn(work)).cpuMs;
}

describe('settling by message id', () => {
  let broker: BrokerApp;
  const consumer = () => new PullClient(broker, 'bulk');

  beforeAll(async () => {
    broker = await startBroker();
    await consumer().register({ pattern: 'bulk.*', ackTimeoutMs: 600_000 });
    // Across two topics of one consumer id: an id is found whichever topic holds it.
    await publishMany(broker, 'bulk.a', LEASED / 2);
    await publishMany(broker, 'bulk.b', LEASED / 2);
  }, 120_000);
  afterAll(() => broker.close());

  it(`answers an ack and an extend of ${LEASED} unknown ids against ${LEASED} leased messages without stalling the event loop`, async () => {
    const leased: Fetched[] = [];
    for (let round = 0; leased.length < LEASED && round < 100; round++) leased.push(...(await consumer().fetch({ max: 1000 })));
    expect(leased.length).toBe(LEASED);
    const unknown = range(LEASED).map((n) => ({ id: `unknown-${n}` }));

    const stall = await longestStall(() =>
      Promise.all([
        consumer()
          .ack(unknown)
          .then((answer) => expect(answer).toEqual({ settled: 0, lost: unknown })),
        consumer()
          .extend(unknown)
          .then((answer) => expect(answer).toEqual({ extended: 0, lost: unknown })),
      ]),
    );
    expect(stall).toBeLessThan(STALL_BOUND_MS);

    // Known ids of both topics, in one request: each settles its own lease, once.
    const known = leased.map((message) => ({ id: message.id }));
    const settling = await longestStall(async () => expect(await consumer().ack(known)).toEqual({ settled: LEASED, lost: [] }));
    expect(settling).toBeLessThan(STALL_BOUND_MS);
    expect(await consumer().ack(known.slice(0, 3))).toEqual({ settled: 0, lost: known.slice(0, 3) });
    for (const topic of ['bulk.a', 'bulk.b']) expect((await broker.subscription('bulk', topic)).lag).toBe(0);
  }, 120_000);

  it('settles an id leased in two topics at once one lease at a time, the older first', async () => {
    const twice = new PullClient(broker, 'twice');
    await twice.register({ pattern: 'twice.*' });
    for (const topic of ['twice.a', 'twice.b']) {
      expect((await broker.request('POST', '/mmmq/messages', { topic, content: topic, id: 'same-id' })).status).toBe(200);
    }
    const first = await twice.fetch({ max: 10 });
    const second = await twice.fetch({ max: 10 });
    const order = [...first, ...second].map((message) => message.topic);
    expect(order.sort()).toEqual(['twice.a', 'twice.b']);
    expect(await twice.ack([{ id: 'same-id' }])).toEqual({ settled: 1, lost: [] });
    expect((await broker.subscription('twice', first[0].topic)).lag).toBe(0);
    expect(await twice.ack([{ id: 'same-id' }])).toEqual({ settled: 1, lost: [] });
    expect(await twice.ack([{ id: 'same-id' }])).toEqual({ settled: 0, lost: [{ id: 'same-id' }] });
  });

  it('finds nothing of a subscription its dispatcher change stopped', async () => {
    const changing = new PullClient(broker, 'changing');
    await changing.register({ pattern: 'changing.*' });
    expect((await broker.request('POST', '/mmmq/messages', { topic: 'changing.a', content: 1, id: 'held' })).status).toBe(200);
    expect((await changing.fetch()).map((message) => message.id)).toEqual(['held']);
    const changed = await broker.request('PUT', '/mmmq/dispatchers/changing', { pattern: 'changing.*', ackTimeoutMs: 5_000 });
    expect(changed.status).toBe(200);
    expect(await changing.ack([{ id: 'held' }])).toEqual({ settled: 0, lost: [{ id: 'held' }] });
    const again = await changing.fetch();
    expect(again.map((message) => [message.id, message.redelivered])).toEqual([['held', true]]);
    expect(await changing.ack([{ id: 'held' }])).toEqual({ settled: 1, lost: [] });
  });
});

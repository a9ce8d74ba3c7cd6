import { startBroker, type BrokerApp } from '@mmmq/test-support';

const MESSAGES = '/mmmq/messages';

describe('flush policies (persistence.fsync, topics…fsync) with the real broker', () => {
  let broker: BrokerApp;

  afterEach(async () => {
    await broker?.close();
  });

  const start = () =>
    startBroker({
      persistence: { fsync: 'interval' },
      topics: {
        overrides: [
          { pattern: 'scratch.**', fsync: 'never' },
          { pattern: 'audit.*', fsync: 'always' },
        ],
      },
    });

  it("says in each ACK when the topic's policy answered before the fsync, and nothing when it was fsync'd first", async () => {
    broker = await start();

    const interval = await broker.request('POST', MESSAGES, { topic: 'order.created', id: 'i', content: 1 });
    const never = await broker.request('POST', MESSAGES, { topic: 'scratch.a', id: 'n', content: 2 });
    const always = await broker.request('POST', MESSAGES, { topic: 'audit.login', id: 'a', content: 3 });
    const early = await broker.request('POST', MESSAGES, { topic: 'order.created', id: 'e', content: 4, deliveryMode: 'nonPersistent' });

    expect(interval.body).toEqual({
      acknowledgement: 'ACK',
      id: 'i',
      topic: 'order.created',
      offset: 0,
      deliveryMode: 'persistent',
      fsync: 'interval',
    });
    expect(never.body).toMatchObject({ id: 'n', offset: 0, fsync: 'never' });
    expect(always.body).toEqual({ acknowledgement: 'ACK', id: 'a', topic: 'audit.login', offset: 0, deliveryMode: 'persistent' });
    expect(early.body).toEqual({
      acknowledgement: 'ACK',
      id: 'e',
      topic: 'order.created',
      deliveryMode: 'nonPersistent',
      fsync: 'interval',
    });
  });

  it('fsyncs a batch before its ACK when one of its topics says always: one record, the strictest policy', async () => {
    broker = await start();

    const batch = await broker.request('POST', `${MESSAGES}/batch`, {
      messages: [
        { topic: 'order.created', id: 'o', content: 1 },
        { topic: 'audit.login', id: 'a', content: 2 },
      ],
    });

    expect(batch.body.messages).toEqual([
      { id: 'o', topic: 'order.created', offset: 0, deliveryMode: 'persistent' },
      { id: 'a', topic: 'audit.login', offset: 0, deliveryMode: 'persistent' },
    ]);
  });

  it('answers a run of interval publishes with far fewer journal fsyncs than publishes', async () => {
    broker = await start();
    const fsyncs = async () => ((await broker.request('GET', '/mmmq/storage')).body as { fsyncs: { journal: number } }).fsyncs.journal;
    const before = await fsyncs();

    for (let n = 0; n < 100; n++) {
      const ack = await broker.request('POST', MESSAGES, { topic: 'order.created', id: `m-${n}`, content: n });
      expect(ack.body).toMatchObject({ offset: n, fsync: 'interval' });
    }

    // One fsync per second at most while they run (the default interval): even a slow machine takes far less than
    // a second per publish.
    expect((await fsyncs()) - before).toBeLessThan(50);
  });
});

import { BrokerApp, startBroker } from './broker-app.fixture';

describe('GET /mmmq/storage', () => {
  let broker: BrokerApp;

  beforeAll(async () => {
    broker = await startBroker();
  });

  afterAll(() => broker.close());

  it('counts one commit group and one journal fsync for a batch spanning topics, and none in the topic files', async () => {
    const before = (await broker.request('GET', '/mmmq/storage')).body;
    const batch = { messages: ['orders', 'invoices', 'refunds'].map((topic, n) => ({ topic, content: n })) };
    expect((await broker.post('/mmmq/messages/batch', JSON.stringify(batch))).status).toBe(200);
    const after = await broker.request('GET', '/mmmq/storage');
    expect(after.status).toBe(200);
    expect(after.body).toEqual({
      journal: { files: 1, bytes: expect.any(Number), lastSeq: before.journal.lastSeq + 1, flushedSeq: before.journal.flushedSeq },
      topics: 3,
      commits: before.commits + 1,
      flushes: before.flushes,
      fsyncs: {
        journal: before.fsyncs.journal + 1,
        flush: before.fsyncs.flush,
        other: expect.any(Number),
        total: expect.any(Number),
      },
      nonPersistentLost: 0,
      descriptors: {
        max: expect.any(Number),
        open: expect.any(Number),
        peak: expect.any(Number),
        evictions: 0,
        reopens: 0,
        waits: 0,
        idleCloses: 0,
      },
      flushRetrying: false,
    });
    expect(after.body.descriptors.open).toBeLessThanOrEqual(after.body.descriptors.max);
    expect(after.body.journal.bytes).toBeGreaterThan(before.journal.bytes);
  });
});

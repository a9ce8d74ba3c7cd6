import { BrokerApp, range, startBroker, TestConsumer, waitFor } from '@mmmq/test-support';
import { PUSH_BATCH_MAX_BYTES } from '../../src/dispatch/ledger/batch-bytes';

/** A content a little under a third of the cap: three fit in one batch, a fourth does not. */
const CONTENT_CHARS = Math.floor(PUSH_BATCH_MAX_BYTES / 3) - 1024;
const MESSAGES = 7;

describe(`a batched push stops growing at PUSH_BATCH_MAX_BYTES (${PUSH_BATCH_MAX_BYTES} bytes)`, () => {
  let broker: BrokerApp;
  const consumer = new TestConsumer();

  beforeAll(async () => {
    await consumer.start();
    broker = await startBroker({ http: { maxBodyBytes: 2 * PUSH_BATCH_MAX_BYTES } });
  });
  afterAll(async () => {
    await broker.close();
    await consumer.stop();
  });

  it('splits a backlog into batches under the cap even though batchSize would take it all, and delivers each message once', async () => {
    // The backlog is there before the dispatcher: its first batch could take all of it, were it not for bytes.
    await broker.publishAll(
      'upload.chunk',
      range(MESSAGES).map((n) => `${n}`.padEnd(CONTENT_CHARS, '.')),
    );
    await broker.addDispatcher('archiver', consumer.url, 'upload.*', { batchSize: 100 });
    await consumer.waitFor(() => consumer.received.length >= MESSAGES, { message: `${MESSAGES} chunks` });

    const batches = consumer.rawRequests.filter((request) => request.url.endsWith('/batch'));
    const sizes = batches.map((request) => JSON.parse(request.raw.toString('utf8')).messages.length);
    expect(sizes).toEqual([3, 3, 1]);
    for (const batch of batches) expect(batch.raw.length).toBeLessThan(PUSH_BATCH_MAX_BYTES + 64 * 1024);
    expect(consumer.received.map((delivery) => delivery.body.offset)).toEqual(range(MESSAGES));
    await waitFor(async () => (await broker.subscription('archiver', 'upload.chunk'))?.lag === 0, { message: 'archiver to catch up' });
  });
});

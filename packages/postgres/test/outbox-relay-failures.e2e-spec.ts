import { startBroker, waitFor } from '@mmmq/test-support';
import type { OutboxRelay } from '../src/relay/outbox-relay';
import { DEFAULT_RELAY_PRODUCER_MAX_RETRY_COUNT } from '../src/relay/outbox-relay.options';
import { startFakeBroker } from './support/fake-broker';
import { addCommitted, outboxRows, testRelay, useOutboxTable } from './support/outbox-fixtures';
import { ResponseDroppingProxy, startResponseDroppingProxy } from './support/response-dropping-proxy';

describe('OutboxRelay when publishing fails', () => {
  const table = useOutboxTable();

  const started = async <T extends { close(): Promise<void> }>(made: Promise<T> | T): Promise<T> => table.closeAfterTest(await made);

  const rowsOf = async (topic: string) => (await outboxRows(table.db)).filter((row) => row.topic === topic);

  it('marks a publish whose answer was lost AMBIGUOUS and retries it with the same id until it is PUBLISHED', async () => {
    const broker = await started(startBroker());
    const proxy: ResponseDroppingProxy = await started(startResponseDroppingProxy(Number(new URL(broker.url).port)));
    await addCommitted(table.db, [{ topic: 'failure.ambiguous', content: { amount: 10 }, id: 'ambiguous-1' }]);
    const relay: OutboxRelay = await started(
      testRelay(table.db, proxy.url, { producer: { broker: proxy.url, maxRetryCount: 0, timeoutMs: 500 } }),
    );

    expect(await relay.relayOnce()).toMatchObject({ leased: 1, published: 0, ambiguous: 1 });

    const [ambiguous] = await rowsOf('failure.ambiguous');
    expect(ambiguous).toMatchObject({ status: 'AMBIGUOUS', attempts: 1, lease_owner: null });
    expect(ambiguous.failure_reason).toMatch(/publish it again with the same id/);
    // The broker did store it: only the answer was lost.
    expect((await broker.stored('failure.ambiguous')).map((message) => message.id)).toEqual(['ambiguous-1']);

    proxy.dropping = false;
    await waitFor(async () => (await relay.relayOnce()).published === 1, { message: 'the AMBIGUOUS row to be retried after its backoff' });

    const [published] = await rowsOf('failure.ambiguous');
    expect(published).toMatchObject({ status: 'PUBLISHED', attempts: 2, failure_reason: null });
    // Every copy the broker holds carries the original id (broker de-duplication keeps one).
    const stored = await broker.stored('failure.ambiguous');
    expect(stored.length).toBeGreaterThanOrEqual(1);
    expect(stored.every((message) => message.id === 'ambiguous-1' && message.content === '{"amount":10}')).toBe(true);
  });

  it('keeps an AMBIGUOUS row until its backoff passed, and a running relay retries it then', async () => {
    await addCommitted(table.db, [{ topic: 'failure.unreachable', content: 1, id: 'unreachable-1' }]);
    const relay = await started(
      testRelay(table.db, 'http://127.0.0.1:1', { producer: { broker: 'http://127.0.0.1:1', maxRetryCount: 0 } }),
    );

    expect(await relay.relayOnce()).toMatchObject({ ambiguous: 1 });
    const { rows } = await table.db.pool.query(
      `SELECT available_at > now() AS later FROM "${table.db.schema}".mmmq_outbox WHERE message_id = 'unreachable-1'`,
    );
    expect(rows[0].later).toBe(true);
    await relay.start();
    await waitFor(async () => (await rowsOf('failure.unreachable'))[0].attempts >= 3, {
      message: 'the running relay to retry the AMBIGUOUS row',
    });
    expect((await rowsOf('failure.unreachable'))[0].status).toBe('AMBIGUOUS');
  });

  it('gives up on a hung broker within the lease when it makes its own producer, and marks the row AMBIGUOUS', async () => {
    const hung = await started(startFakeBroker(() => undefined));
    await addCommitted(table.db, [{ topic: 'failure.hung', content: 1, id: 'hung-1' }]);
    // Producer options without retry or timeout settings: the relay fits them to its 2 s lease.
    const relay = await started(testRelay(table.db, hung.url, { producer: { broker: hung.url }, leaseMs: 2_000 }));

    expect(await relay.relayOnce()).toMatchObject({ leased: 1, ambiguous: 1 });

    expect(hung.batches).toHaveLength(1 + DEFAULT_RELAY_PRODUCER_MAX_RETRY_COUNT);
    expect((await rowsOf('failure.hung'))[0]).toMatchObject({
      status: 'AMBIGUOUS',
      failure_reason: expect.stringMatching(/after 2 attempts/),
    });
  });

  it('marks a row the broker rejects (4xx) FAILED with the reason, and still publishes the rest of its batch', async () => {
    const broker = await started(startBroker({ http: { maxBodyBytes: 4096 } }));
    await addCommitted(table.db, [
      { topic: 'failure.rejected', content: 'small-1', id: 'rejected-ok-1' },
      { topic: 'failure.rejected', content: 'x'.repeat(6000), id: 'rejected-big' },
      { topic: 'failure.rejected', content: 'small-2', id: 'rejected-ok-2' },
    ]);
    const relay = await started(testRelay(table.db, broker.url));

    expect(await relay.relayOnce()).toMatchObject({ leased: 3, published: 2, failed: 1, ambiguous: 0 });

    const rows = await rowsOf('failure.rejected');
    expect(rows.map((row) => row.status)).toEqual(['PUBLISHED', 'FAILED', 'PUBLISHED']);
    expect(rows[1].failure_reason).toMatch(/refused by the broker with 413/);
    expect((await broker.stored('failure.rejected')).map((message) => message.id)).toEqual(['rejected-ok-1', 'rejected-ok-2']);
    // FAILED is final: nothing is leased again.
    expect((await relay.leaseBatch()).rows).toEqual([]);
  });

  it('marks a row written by hand with content that is not JSON FAILED', async () => {
    const broker = await started(startBroker());
    await table.db.pool.query(
      `INSERT INTO "${table.db.schema}".mmmq_outbox (message_id, topic, content) VALUES ('by-hand-1', 'failure.by-hand', 'not json')`,
    );
    const relay = await started(testRelay(table.db, broker.url));

    expect(await relay.relayOnce()).toMatchObject({ failed: 1 });
    expect((await rowsOf('failure.by-hand'))[0]).toMatchObject({
      status: 'FAILED',
      failure_reason: expect.stringMatching(/content that is not JSON/),
    });
  });

  it('starts and closes while the database is unreachable', async () => {
    const relay = testRelay(table.db, 'http://127.0.0.1:1', { connection: 'postgres://postgres@127.0.0.1:1/test', reconnectDelayMs: 50 });

    await relay.start();
    await relay.close();
    await relay.close();
  });
});

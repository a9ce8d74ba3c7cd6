import { setTimeout as delay } from 'node:timers/promises';
import { waitFor } from '@mmmq/test-support';
import type { PoolClient } from 'pg';
import type { OutboxRelay } from '../src/relay/outbox-relay';
import { addCommitted, testRelay, useOutboxTable } from './support/outbox-fixtures';

/** Never contacted: in these tests no row can be leased. */
const NO_BROKER = 'http://127.0.0.1:1';
/** How long the lease rounds are counted. A spinning relay runs hundreds of them in this time; an idle one a few. */
const WATCH_MS = 2_000;

describe('OutboxRelay with nothing it can lease', () => {
  const table = useOutboxTable();

  /** Starts `relay` and counts the lease statements it runs during {@link WATCH_MS}, after its first one. */
  async function leasesWhileWatching(relay: OutboxRelay): Promise<number> {
    table.closeAfterTest(relay);
    const leaseBatch = jest.spyOn(relay, 'leaseBatch');
    await relay.start();
    await waitFor(() => leaseBatch.mock.calls.length > 0, { message: 'the relay to run its first round' });
    const before = leaseBatch.mock.calls.length;
    // A bounded observation window, not a wait for a condition: what is measured is how often the relay looks.
    await delay(WATCH_MS);
    return leaseBatch.mock.calls.length - before;
  }

  async function addAggregate(prefix: string): Promise<void> {
    await addCommitted(table.db, [
      { topic: 'idle.order', content: 1, id: `${prefix}-a`, aggregateType: 'order', aggregateId: 'x' },
      { topic: 'idle.order', content: 2, id: `${prefix}-b`, aggregateType: 'order', aggregateId: 'x' },
    ]);
  }

  it('sleeps until the earlier row of an aggregate is due, instead of spinning on the row it holds back', async () => {
    await addAggregate('ambiguous');
    // Row a failed ambiguously and waits a minute for its retry; row b is PENDING but must wait for a.
    await table.db.pool.query(
      `UPDATE "${table.db.schema}".mmmq_outbox SET status = 'AMBIGUOUS', available_at = now() + interval '60 seconds' ` +
        `WHERE message_id = 'ambiguous-a'`,
    );
    // A tiny reconnectDelayMs: only the due time of the rows can keep the relay from looking again at once.
    const relay = testRelay(table.db, NO_BROKER, { orderByAggregate: true, pollIntervalMs: 60_000, reconnectDelayMs: 1 });

    expect(await leasesWhileWatching(relay)).toBeLessThanOrEqual(3);
  });

  it('sleeps until the lease of the earlier row of an aggregate expires, while another relay holds it', async () => {
    await addAggregate('leased');
    await table.db.pool.query(
      `UPDATE "${table.db.schema}".mmmq_outbox SET lease_owner = 'other-relay#1', lease_until = now() + interval '60 seconds', ` +
        `attempts = 1 WHERE message_id = 'leased-a'`,
    );
    const relay = testRelay(table.db, NO_BROKER, { orderByAggregate: true, pollIntervalMs: 60_000, reconnectDelayMs: 1 });

    expect(await leasesWhileWatching(relay)).toBeLessThanOrEqual(3);
  });

  it('waits reconnectDelayMs between rounds while a due row is locked and cannot be leased', async () => {
    await addCommitted(table.db, [{ topic: 'idle.locked', content: 1, id: 'locked-1' }]);
    const locker: PoolClient = await table.db.pool.connect();
    table.closeAfterTest({ close: async () => void (await locker.query('ROLLBACK'), locker.release()) });
    await locker.query('BEGIN');
    // SKIP LOCKED passes over it, yet it is due: nothing in the table says how long to wait.
    await locker.query(`SELECT 1 FROM "${table.db.schema}".mmmq_outbox WHERE message_id = 'locked-1' FOR UPDATE`);
    const relay = testRelay(table.db, NO_BROKER, { pollIntervalMs: 60_000, reconnectDelayMs: 1_000 });

    expect(await leasesWhileWatching(relay)).toBeLessThanOrEqual(5);
  });
});

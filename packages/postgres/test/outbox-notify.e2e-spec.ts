import { BrokerApp, startBroker, waitFor } from '@mmmq/test-support';
import { Client } from 'pg';
import { outboxChannel } from '../src/outbox/outbox-table';
import { pgAdapter } from '../src/sql/pg-adapter';
import { Outbox } from '../src/outbox/outbox';
import { addCommitted, outboxRows, testRelay, useOutboxTable } from './support/outbox-fixtures';
import { TEST_DATABASE_URL } from './support/test-database';

/** The advisory lock a sleeping relay holds (migrations/0003_outbox_notify_waiting.sql), for the channel `$1`. */
const WAITING_LOCK = `hashtext('mmmq_outbox'), hashtext($1)`;

describe('The outbox NOTIFY, sent only while a relay sleeps', () => {
  const table = useOutboxTable();
  let broker: BrokerApp;
  let listener: Client;
  let notifications: number;

  beforeAll(async () => {
    broker = await startBroker();
  });

  afterAll(async () => {
    await broker?.close();
  });

  beforeEach(async () => {
    notifications = 0;
    const client = new Client(TEST_DATABASE_URL);
    listener = client;
    table.closeAfterTest({ close: () => client.end() });
    listener.on('notification', () => notifications++);
    await listener.connect();
    await listener.query(`LISTEN "${outboxChannel(table.db.schema)}"`);
  });

  /**
   * Notifications of commits that returned before this call: the listening backend has them by then (the writer
   * signals it before its COMMIT returns) and sends them before the reply to the next statement.
   */
  async function notificationsSoFar(): Promise<number> {
    await listener.query('SELECT 1');
    return notifications;
  }

  it('sends none while no relay waits: a NOTIFY per commit would serialise the writers’ commits', async () => {
    await addCommitted(table.db, [{ topic: 'notify.none', content: 1 }]);
    await addCommitted(table.db, [{ topic: 'notify.none', content: 2 }]);

    expect(await notificationsSoFar()).toBe(0);
  });

  it('sends one per commit while a relay holds the waiting lock', async () => {
    const sleeper = new Client(TEST_DATABASE_URL);
    table.closeAfterTest({ close: () => sleeper.end() });
    await sleeper.connect();
    await sleeper.query(`SELECT pg_advisory_lock(${WAITING_LOCK})`, [outboxChannel(table.db.schema)]);

    await addCommitted(table.db, [{ topic: 'notify.sleeping', content: 1 }]);
    await addCommitted(table.db, [{ topic: 'notify.sleeping', content: 2 }]);

    expect(await notificationsSoFar()).toBe(2);
  });

  it('a relay that finds nothing holds the waiting lock and is woken at once by the next commit', async () => {
    const relay = table.closeAfterTest(testRelay(table.db, broker.url, { pollIntervalMs: 600_000 }));
    await relay.start();
    await waitFor(async () => (await waitingLockHolders()) === 1, { message: 'the idle relay to take the waiting lock' });

    await addCommitted(table.db, [{ topic: 'notify.wake', content: 1, id: 'wake-1' }]);

    await waitFor(async () => (await outboxRows(table.db)).every((row) => row.status === 'PUBLISHED'), {
      message: 'the NOTIFY to wake the relay (its poll interval is 10 minutes)',
    });
  });

  it('a relay does not sleep on a row whose writer was committing without a NOTIFY when the relay looked', async () => {
    const outbox = new Outbox({ adapter: pgAdapter, schema: table.db.schema });
    const writer = await table.db.pool.connect();
    table.closeAfterTest({ close: async () => writer.release() });
    await writer.query('BEGIN');
    await outbox.add(writer, 'notify.committing', 1, { id: 'committing-1' });
    // What the deferred trigger does at COMMIT, brought forward: no relay waits, so the writer takes the lock shared
    // and will not NOTIFY; the row is not visible yet.
    await writer.query('SET CONSTRAINTS ALL IMMEDIATE');
    expect(await notificationsSoFar()).toBe(0);
    const relay = table.closeAfterTest(testRelay(table.db, broker.url, { pollIntervalMs: 600_000 }));
    const leaseBatch = jest.spyOn(relay, 'leaseBatch');
    await relay.start();
    await waitFor(() => leaseBatch.mock.calls.length >= 2, { message: 'the relay to look at the table while the writer commits' });
    expect(await writerLocks()).toBe(1);

    await writer.query('COMMIT');

    await waitFor(async () => (await outboxRows(table.db)).every((row) => row.status === 'PUBLISHED'), {
      message: 'the relay to look again once the writer committed (its poll interval is 10 minutes)',
    });
  });

  async function locks(mode: string): Promise<number> {
    const { rows } = await table.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND mode = $2 AND granted ` +
        `AND (classid, objid) = (SELECT k1::oid, k2::oid FROM (SELECT ${WAITING_LOCK}) AS k (k1, k2))`,
      [outboxChannel(table.db.schema), mode],
    );
    return rows[0].n;
  }

  const waitingLockHolders = () => locks('ExclusiveLock');
  const writerLocks = () => locks('ShareLock');
});

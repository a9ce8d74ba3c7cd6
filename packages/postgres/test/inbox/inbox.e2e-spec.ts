import { InvalidConsumerIdError, InvalidMessageError } from '@mmmq/core';
import type { ClientBase } from 'pg';
import { Inbox } from '../../src/inbox/inbox';
import { InboxRetention } from '../../src/inbox/inbox-retention';
import { pgAdapter } from '../../src/sql/pg-adapter';
import { pgTransaction } from '../../src/sql/pg-transaction';
import { createTestDatabase, TestDatabase } from '../support/test-database';

describe('Inbox.process against PostgreSQL (pg)', () => {
  let db: TestDatabase;
  let inbox: Inbox<ClientBase>;
  let transaction: ReturnType<typeof pgTransaction>;
  const charge = (tx: ClientBase, orderId: string) => tx.query(`INSERT INTO "${db.schema}".charges (order_id) VALUES ($1)`, [orderId]);
  const charges = async () => (await db.pool.query<{ order_id: string }>(`SELECT order_id FROM "${db.schema}".charges ORDER BY id`)).rows;
  const reservations = async () =>
    (await db.pool.query(`SELECT message_id, consumer_id FROM "${db.schema}".mmmq_inbox ORDER BY message_id, consumer_id`)).rows;

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query(`CREATE TABLE "${db.schema}".charges (id serial PRIMARY KEY, order_id text NOT NULL)`);
    inbox = new Inbox({ adapter: pgAdapter, schema: db.schema });
    transaction = pgTransaction(db.pool);
  });
  afterAll(() => db.drop());
  beforeEach(() => db.pool.query(`TRUNCATE "${db.schema}".charges, "${db.schema}".mmmq_inbox`));

  it('runs the side effect once: a second delivery of the id returns duplicate without running it', async () => {
    const sideEffect = jest.fn((tx: ClientBase) => charge(tx, 'o-1').then(() => 'charged'));
    const first = await transaction((tx) => inbox.process(tx, 'm-1', 'billing', sideEffect));
    const second = await transaction((tx) => inbox.process(tx, 'm-1', 'billing', sideEffect));
    expect(first).toEqual({ status: 'processed', result: 'charged' });
    expect(second).toEqual({ status: 'duplicate' });
    expect(sideEffect).toHaveBeenCalledTimes(1);
    expect(await charges()).toEqual([{ order_id: 'o-1' }]);
  });

  it('de-duplicates per consumer: two consumer ids each process the message once', async () => {
    for (const consumerId of ['billing', 'shipping', 'billing', 'shipping']) {
      await transaction((tx) => inbox.process(tx, 'm-1', consumerId, (client) => charge(client, consumerId)));
    }
    expect(await charges()).toEqual([{ order_id: 'billing' }, { order_id: 'shipping' }]);
    expect(await reservations()).toEqual([
      { message_id: 'm-1', consumer_id: 'billing' },
      { message_id: 'm-1', consumer_id: 'shipping' },
    ]);
  });

  it('a crash between the side effect and COMMIT leaves neither the effect nor the reservation; the redelivery processes once', async () => {
    const crashed = transaction(async (tx) => {
      await inbox.process(tx, 'm-1', 'billing', (client) => charge(client, 'o-1'));
      throw new Error('process crashed before COMMIT');
    });
    await expect(crashed).rejects.toThrow('process crashed before COMMIT');
    expect(await charges()).toEqual([]);
    expect(await reservations()).toEqual([]);

    // The connection itself dies before COMMIT (the server ends the backend): rolled back as well.
    const client = await db.pool.connect();
    await client.query('BEGIN');
    await inbox.process(client, 'm-1', 'billing', (tx) => charge(tx, 'o-1'));
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    client.on('error', () => undefined); // the terminated connection reports it; expected
    await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
    await expect(client.query('COMMIT')).rejects.toThrow();
    client.release(true);
    expect(await charges()).toEqual([]);

    const redelivered = await transaction((tx) => inbox.process(tx, 'm-1', 'billing', (client) => charge(client, 'o-1')));
    expect(redelivered.status).toBe('processed');
    expect(await charges()).toEqual([{ order_id: 'o-1' }]);
  });

  describe('two deliveries of one id at once', () => {
    /** Reserves in a transaction left open; the returned functions end it. */
    async function holdReservation(messageId: string) {
      const client = await db.pool.connect();
      await client.query('BEGIN');
      const outcome = await inbox.process(client, messageId, 'billing', (tx) => charge(tx, 'first'));
      const end = async (statement: 'COMMIT' | 'ROLLBACK') => {
        await client.query(statement);
        client.release();
      };
      return { outcome, commit: () => end('COMMIT'), rollback: () => end('ROLLBACK') };
    }

    /** Starts the second delivery and resolves once PostgreSQL shows it waiting on the first one's lock. */
    async function secondDelivery(messageId: string) {
      const outcome = transaction((tx) => inbox.process(tx, messageId, 'billing', (client) => charge(client, 'second')));
      outcome.catch(() => undefined); // awaited by the test; not unhandled while the lock wait is polled
      await waitForLockWait();
      return { outcome };
    }

    async function waitForLockWait(): Promise<void> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const { rows } = await db.pool.query(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO "${db.schema}".mmmq_inbox%'`,
        );
        if (rows.length > 0) return;
        if (Date.now() > deadline) throw new Error('the second delivery never waited on the first one');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    it('the second waits for the first: it is a duplicate when the first commits', async () => {
      const first = await holdReservation('m-1');
      const second = await secondDelivery('m-1');
      await first.commit();
      expect(first.outcome.status).toBe('processed');
      expect(await second.outcome).toEqual({ status: 'duplicate' });
      expect(await charges()).toEqual([{ order_id: 'first' }]);
    });

    it('the second processes the message when the first rolls back', async () => {
      const first = await holdReservation('m-2');
      const second = await secondDelivery('m-2');
      await first.rollback();
      expect((await second.outcome).status).toBe('processed');
      expect(await charges()).toEqual([{ order_id: 'second' }]);
    });
  });

  it('refuses ids the broker would refuse, before any SQL', async () => {
    const sideEffect = jest.fn();
    await expect(transaction((tx) => inbox.process(tx, 'has space', 'billing', sideEffect))).rejects.toThrow(InvalidMessageError);
    await expect(transaction((tx) => inbox.process(tx, 'm-1', 'bad/id', sideEffect))).rejects.toThrow(InvalidConsumerIdError);
    expect(sideEffect).not.toHaveBeenCalled();
  });

  it('the retention job deletes rows older than the retention, in bounded batches, and keeps the others', async () => {
    await db.pool.query(
      `INSERT INTO "${db.schema}".mmmq_inbox (message_id, consumer_id, processed_at)
       SELECT 'old-' || n, 'billing', now() - interval '15 days' FROM generate_series(1, 25) AS n`,
    );
    await transaction((tx) => inbox.process(tx, 'recent', 'billing', async () => undefined));
    const retention = new InboxRetention(pgAdapter, transaction, {
      schema: `"${db.schema}"`,
      retentionMs: 14 * 24 * 60 * 60 * 1000,
      intervalMs: 0,
      batchSize: 10,
    });
    expect(await retention.purge()).toBe(25);
    expect(await reservations()).toEqual([{ message_id: 'recent', consumer_id: 'billing' }]);
    await retention.close();
    await retention.close();
  });
});

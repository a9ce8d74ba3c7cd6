import type { InboxKey } from '@mmmq/consumer';
import type { ClientBase } from 'pg';
import { Inbox } from '../../src/inbox/inbox';
import { InboxGroupCommit, InboxGroupCommitOptions } from '../../src/inbox/inbox-group-commit';
import { pgAdapter } from '../../src/sql/pg-adapter';
import { pgTransaction, TransactionRunner } from '../../src/sql/pg-transaction';
import { createTestDatabase, TestDatabase } from '../support/test-database';

describe('InboxGroupCommit against PostgreSQL (pg)', () => {
  let db: TestDatabase;
  let inbox: Inbox<ClientBase>;
  /** Transactions opened, and the most open at once. */
  let opened: number;
  let mostOpen: number;
  /** Set by a test: throws in the transaction after the work, before COMMIT (the process dies there). */
  let crashBeforeCommit: (() => boolean) | undefined;
  const charge = (tx: ClientBase, orderId: string) => tx.query(`INSERT INTO "${db.schema}".charges (order_id) VALUES ($1)`, [orderId]);
  const charges = async () =>
    (await db.pool.query<{ order_id: string }>(`SELECT order_id FROM "${db.schema}".charges ORDER BY order_id`)).rows.map(
      (row) => row.order_id,
    );
  const reserved = async () =>
    (await db.pool.query<{ message_id: string }>(`SELECT message_id FROM "${db.schema}".mmmq_inbox ORDER BY message_id`)).rows.map(
      (row) => row.message_id,
    );
  const key = (messageId: string): InboxKey => ({ messageId, consumerId: 'billing' });

  function counting(transaction: TransactionRunner<ClientBase>): TransactionRunner<ClientBase> {
    let open = 0;
    return async (work) => {
      opened++;
      mostOpen = Math.max(mostOpen, ++open);
      try {
        return await transaction(async (tx) => {
          const result = await work(tx);
          if (crashBeforeCommit?.()) throw new Error('process crashed before COMMIT');
          return result;
        });
      } finally {
        open--;
      }
    };
  }

  function groupCommit(options?: InboxGroupCommitOptions): InboxGroupCommit<ClientBase> {
    return new InboxGroupCommit(inbox, counting(pgTransaction(db.pool)), options);
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query(`CREATE TABLE "${db.schema}".charges (id serial PRIMARY KEY, order_id text NOT NULL)`);
    inbox = new Inbox({ adapter: pgAdapter, schema: db.schema });
  });
  afterAll(() => db.drop());
  beforeEach(async () => {
    opened = 0;
    mostOpen = 0;
    crashBeforeCommit = undefined;
    await db.pool.query(`TRUNCATE "${db.schema}".charges, "${db.schema}".mmmq_inbox`);
  });

  it('deliveries handed over in one turn share one transaction and each resolves with its own result', async () => {
    const group = groupCommit();
    const ids = ['m-1', 'm-2', 'm-3', 'm-4', 'm-5'];
    const outcomes = await Promise.all(ids.map((id) => group.process(key(id), (tx) => charge(tx, id).then(() => `charged ${id}`))));
    expect(outcomes).toEqual(ids.map((id) => ({ status: 'processed', result: `charged ${id}` })));
    expect(opened).toBe(1);
    expect(await charges()).toEqual(ids);
    expect(await reserved()).toEqual(ids);
  });

  it('keeps to maxMessages a transaction and maxTransactions open at once', async () => {
    const group = groupCommit({ maxMessages: 3, maxTransactions: 2 });
    const ids = Array.from({ length: 10 }, (_, i) => `m-${String(i).padStart(2, '0')}`);
    await Promise.all(ids.map((id) => group.process(key(id), (tx) => charge(tx, id))));
    expect(opened).toBe(4);
    expect(mostOpen).toBe(2);
    expect(await charges()).toEqual(ids);
  });

  it('a failing handler rejects alone: the group rolls back and its other deliveries commit one by one', async () => {
    const group = groupCommit();
    const runs: string[] = [];
    const handler = (id: string) => async (tx: ClientBase) => {
      runs.push(id);
      if (id === 'm-2') throw new Error('card declined');
      if (id === 'm-3') await tx.query('SELECT * FROM no_such_table'); // a SQL error aborts the whole transaction
      return charge(tx, id);
    };
    const outcomes = await Promise.allSettled(['m-1', 'm-2', 'm-3', 'm-4'].map((id) => group.process(key(id), handler(id))));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('card declined'));
    expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/no_such_table/);
    expect(await charges()).toEqual(['m-1', 'm-4']);
    expect(await reserved()).toEqual(['m-1', 'm-4']);
    // m-1 ran in the group that rolled back, then alone: only what it wrote in the transaction counts.
    expect(runs).toEqual(['m-1', 'm-2', 'm-1', 'm-2', 'm-3', 'm-4']);
  });

  it('a message processed before, or twice in one group, is a duplicate and its handler does not run again', async () => {
    const group = groupCommit();
    await group.process(key('m-1'), (tx) => charge(tx, 'm-1'));
    const handler = jest.fn((tx: ClientBase) => charge(tx, 'again'));
    const outcomes = await Promise.all([
      group.process(key('m-1'), handler),
      group.process(key('m-2'), handler),
      group.process(key('m-2'), handler),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['duplicate', 'processed', 'duplicate']);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(await reserved()).toEqual(['m-1', 'm-2']);
  });

  it('a crash before COMMIT leaves neither effects nor reservations; the deliveries then commit alone, once each', async () => {
    const group = groupCommit();
    let crashes = 1;
    crashBeforeCommit = () => crashes-- > 0;
    const ids = ['m-1', 'm-2', 'm-3'];
    const outcomes = await Promise.all(ids.map((id) => group.process(key(id), (tx) => charge(tx, id))));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['processed', 'processed', 'processed']);
    expect(opened).toBe(1 + ids.length);
    expect(await charges()).toEqual(ids);

    crashBeforeCommit = () => true;
    const crashed = await Promise.allSettled(['m-4', 'm-5'].map((id) => group.process(key(id), (tx) => charge(tx, id))));
    expect(crashed.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(await charges()).toEqual(ids);
    expect(await reserved()).toEqual(ids);
  });

  it('refuses ids the broker would refuse, for that delivery only', async () => {
    const group = groupCommit();
    const outcomes = await Promise.allSettled([
      group.process(key('has space'), (tx) => charge(tx, 'bad')),
      group.process(key('m-1'), (tx) => charge(tx, 'm-1')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled']);
    expect(await charges()).toEqual(['m-1']);
  });

  it('close() resolves once every delivery handed over has settled, and again when called twice', async () => {
    const group = groupCommit({ maxTransactions: 1, maxMessages: 2 });
    const settled: string[] = [];
    for (const id of ['m-1', 'm-2', 'm-3']) void group.process(key(id), (tx) => charge(tx, id)).then(() => settled.push(id));
    await group.close();
    await group.close();
    expect(settled.sort()).toEqual(['m-1', 'm-2', 'm-3']);
  });
});

import { InvalidMessageError, InvalidTopicError } from '@mmmq/core';
import { Kysely, PostgresDialect } from 'kysely';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { DuplicateOutboxMessageError } from '../src/errors/duplicate-outbox-message.error';
import { kyselyAdapter } from '../src/sql/kysely-adapter';
import { Outbox } from '../src/outbox/outbox';
import { pgAdapter } from '../src/sql/pg-adapter';
import { typeOrmAdapter } from '../src/sql/typeorm-adapter';
import { outboxRows } from './support/outbox-fixtures';
import { createTestDatabase, TEST_DATABASE_URL, TestDatabase } from './support/test-database';

interface OrderTable {
  id: string;
}
interface TestDb {
  orders: OrderTable;
}

class Rollback extends Error {}

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('Outbox.add() in the caller’s transaction', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let kysely: Kysely<TestDb>;

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query(`CREATE TABLE "${db.schema}".orders (id text PRIMARY KEY)`);
    dataSource = new DataSource({ type: 'postgres', url: TEST_DATABASE_URL, schema: db.schema, logging: false });
    await dataSource.initialize();
    kysely = new Kysely<TestDb>({ dialect: new PostgresDialect({ pool: new Pool({ connectionString: TEST_DATABASE_URL, max: 2 }) }) });
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await kysely?.destroy();
    await db?.drop();
  });

  async function orders(): Promise<string[]> {
    const { rows } = await db.pool.query<{ id: string }>(`SELECT id FROM "${db.schema}".orders ORDER BY id`);
    return rows.map((row) => row.id);
  }

  async function outboxIds(): Promise<string[]> {
    return (await outboxRows(db)).map((row) => row.message_id);
  }

  describe('with pg', () => {
    const outbox = () => new Outbox({ adapter: pgAdapter, schema: db.schema });

    async function inTransaction(work: (client: import('pg').PoolClient) => Promise<void>, commit: boolean): Promise<void> {
      const client = await db.pool.connect();
      try {
        await client.query('BEGIN');
        try {
          await work(client);
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
        await client.query(commit ? 'COMMIT' : 'ROLLBACK');
      } finally {
        client.release();
      }
    }

    it('commits the business row and the outbox row together', async () => {
      await inTransaction(async (client) => {
        await client.query(`INSERT INTO "${db.schema}".orders (id) VALUES ('pg-1')`);
        await outbox().add(client, 'order.created', { orderId: 'pg-1' }, { id: 'pg-msg-1', aggregateType: 'order', aggregateId: 'pg-1' });
      }, true);

      expect(await orders()).toContain('pg-1');
      const row = (await outboxRows(db)).find((candidate) => candidate.message_id === 'pg-msg-1');
      expect(row).toMatchObject({
        topic: 'order.created',
        content: '{"orderId":"pg-1"}',
        status: 'PENDING',
        attempts: 0,
        aggregate_id: 'pg-1',
      });
    });

    it('stores every option of add(), and the column defaults when none is given', async () => {
      await inTransaction(async (client) => {
        await outbox().add(client, 'order.shipped', { n: 1 }, { id: 'pg-bare' });
        await outbox().add(client, 'order.shipped', { n: 2 }, { id: 'pg-headers', headers: { tenant: 't-1' } });
        await outbox().add(
          client,
          'order.shipped',
          { n: 3 },
          { id: 'pg-full', aggregateType: 'order', aggregateId: 'o-3', traceparent: TRACEPARENT, tracestate: 'v=1' },
        );
      }, true);

      const rows = new Map((await outboxRows(db)).map((row) => [row.message_id, row]));
      const none = { headers: {}, aggregate_type: null, aggregate_id: null, traceparent: null, tracestate: null };
      expect(rows.get('pg-bare')).toMatchObject({ topic: 'order.shipped', content: '{"n":1}', status: 'PENDING', ...none });
      expect(rows.get('pg-headers')).toMatchObject({ content: '{"n":2}', ...none, headers: { tenant: 't-1' } });
      expect(rows.get('pg-full')).toMatchObject({
        content: '{"n":3}',
        headers: {},
        aggregate_type: 'order',
        aggregate_id: 'o-3',
        traceparent: TRACEPARENT,
        tracestate: 'v=1',
      });
    });

    it('rolls back the business row and the outbox row together', async () => {
      await inTransaction(async (client) => {
        await client.query(`INSERT INTO "${db.schema}".orders (id) VALUES ('pg-2')`);
        await outbox().add(client, 'order.created', { orderId: 'pg-2' }, { id: 'pg-msg-2' });
      }, false);

      expect(await orders()).not.toContain('pg-2');
      expect(await outboxIds()).not.toContain('pg-msg-2');
    });

    it('adds several messages in order and returns their ids, UUIDs where none was given', async () => {
      let ids: string[] = [];
      await inTransaction(async (client) => {
        ids = await outbox().addMany(client, [
          { topic: 'order.created', content: 1, id: 'pg-many-1' },
          { topic: 'order.paid', content: 2 },
        ]);
      }, true);

      expect(ids[0]).toBe('pg-many-1');
      expect(ids[1]).toMatch(/^[0-9a-f-]{36}$/);
      const all = await outboxIds();
      expect(all.indexOf(ids[1])).toBe(all.indexOf('pg-many-1') + 1);
    });

    it('refuses an id the outbox already holds', async () => {
      await expect(
        inTransaction(async (client) => {
          await outbox().add(client, 'order.created', 1, { id: 'pg-msg-1' });
        }, true),
      ).rejects.toThrow(DuplicateOutboxMessageError);
    });

    it('validates topic, id, headers and content before writing', async () => {
      await inTransaction(async (client) => {
        await expect(outbox().add(client, 'bad topic', 1)).rejects.toThrow(InvalidTopicError);
        await expect(outbox().add(client, '__internal', 1)).rejects.toThrow(InvalidTopicError);
        await expect(outbox().add(client, 't', 1, { id: 'has space' })).rejects.toThrow(InvalidMessageError);
        await expect(outbox().add(client, 't', 1, { headers: { x: {} as never } })).rejects.toThrow(InvalidMessageError);
        await expect(outbox().add(client, 't', 1, { headers: { 'mmmq-aggregate-id': 'x' } })).rejects.toThrow(
          /reserved for the outbox relay/,
        );
        await expect(outbox().add(client, 't', undefined)).rejects.toThrow(/must be a JSON value/);
        await expect(outbox().add(client, 't', 1, { idd: 'x' } as never)).rejects.toThrow(/Unknown outbox.add\(\) option\(s\) idd/);
        await expect(
          outbox().addMany(client, [
            { topic: 't', content: 1 },
            { topic: 'bad topic', content: 1 },
          ]),
        ).rejects.toThrow(/^messages\[1\]: /);
      }, false);
    });
  });

  describe('with TypeORM', () => {
    const outbox = () => new Outbox({ adapter: typeOrmAdapter, schema: db.schema });

    it('commits the business row and the outbox row together (EntityManager)', async () => {
      await dataSource.transaction(async (manager) => {
        await manager.query(`INSERT INTO "${db.schema}".orders (id) VALUES ('typeorm-1')`);
        await outbox().add(manager, 'order.created', { orderId: 'typeorm-1' }, { id: 'typeorm-msg-1' });
      });

      expect(await orders()).toContain('typeorm-1');
      expect(await outboxIds()).toContain('typeorm-msg-1');
    });

    it('rolls back the business row and the outbox row together (EntityManager)', async () => {
      await expect(
        dataSource.transaction(async (manager) => {
          await manager.query(`INSERT INTO "${db.schema}".orders (id) VALUES ('typeorm-2')`);
          await outbox().add(manager, 'order.created', { orderId: 'typeorm-2' }, { id: 'typeorm-msg-2' });
          throw new Rollback();
        }),
      ).rejects.toThrow(Rollback);

      expect(await orders()).not.toContain('typeorm-2');
      expect(await outboxIds()).not.toContain('typeorm-msg-2');
    });

    it('works with a QueryRunner, and refuses one outside a transaction', async () => {
      const runner = dataSource.createQueryRunner();
      try {
        await expect(outbox().add(runner, 'order.created', 1)).rejects.toThrow(/not inside a transaction/);
        await runner.startTransaction();
        await runner.query(`INSERT INTO "${db.schema}".orders (id) VALUES ('typeorm-3')`);
        await outbox().add(runner, 'order.created', 1, { id: 'typeorm-msg-3' });
        await runner.rollbackTransaction();
      } finally {
        await runner.release();
      }
      expect(await orders()).not.toContain('typeorm-3');
      expect(await outboxIds()).not.toContain('typeorm-msg-3');
    });

    it('reports a duplicate id through TypeORM’s wrapped error', async () => {
      await expect(dataSource.transaction((manager) => outbox().add(manager, 'order.created', 1, { id: 'typeorm-msg-1' }))).rejects.toThrow(
        DuplicateOutboxMessageError,
      );
    });
  });

  describe('with Kysely', () => {
    const outbox = () => new Outbox({ adapter: kyselyAdapter, schema: db.schema });

    it('commits the business row and the outbox row together', async () => {
      await kysely.transaction().execute(async (trx) => {
        await trx.withSchema(db.schema).insertInto('orders').values({ id: 'kysely-1' }).execute();
        await outbox().add(trx, 'order.created', { orderId: 'kysely-1' }, { id: 'kysely-msg-1' });
      });

      expect(await orders()).toContain('kysely-1');
      expect(await outboxIds()).toContain('kysely-msg-1');
    });

    it('rolls back the business row and the outbox row together', async () => {
      await expect(
        kysely.transaction().execute(async (trx) => {
          await trx.withSchema(db.schema).insertInto('orders').values({ id: 'kysely-2' }).execute();
          await outbox().add(trx, 'order.created', { orderId: 'kysely-2' }, { id: 'kysely-msg-2' });
          throw new Rollback();
        }),
      ).rejects.toThrow(Rollback);

      expect(await orders()).not.toContain('kysely-2');
      expect(await outboxIds()).not.toContain('kysely-msg-2');
    });

    it('refuses a Kysely instance that is not a transaction', async () => {
      await expect(outbox().add(kysely as never, 'order.created', 1)).rejects.toThrow(/expected the Transaction/);
    });
  });
});

import { MessageContext, MMMQListener, MmmqConsumerHealthIndicator, MmmqConsumerModule } from '@mmmq/consumer';
import { BrokerApp, FAST_BACKOFF, startBroker, waitFor } from '@mmmq/test-support';
import { Injectable, INestApplicationContext, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { PoolClient } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { MmmqInboxModule } from '../../src/inbox/mmmq-inbox.module';
import type { MmmqInboxOptions } from '../../src/inbox/mmmq-inbox.options';
import { pgAdapter } from '../../src/sql/pg-adapter';
import { pgTransaction, TransactionRunner } from '../../src/sql/pg-transaction';
import { typeOrmAdapter } from '../../src/sql/typeorm-adapter';
import type { SqlAdapter } from '../../src/sql/sql-adapter';
import { createTestDatabase, TEST_DATABASE_URL, TestDatabase } from '../support/test-database';

/** One database library as a listener's application uses it. */
interface Library {
  adapter: SqlAdapter<any>;
  transaction: TransactionRunner<any>;
  /** The handler's side effect, written in the transaction it is given. */
  charge(tx: unknown, orderId: string): Promise<unknown>;
  close(): Promise<void>;
}

let db: TestDatabase;
let library: Library;
/** Deliveries each handler saw, as delivery counts. */
const attempts: number[] = [];

@Injectable()
class BillingListener {
  @MMMQListener('order.*', { consumerId: 'billing.orders', inbox: true })
  async onOrder(order: { orderId: string }, context: MessageContext): Promise<void> {
    attempts.push(context.deliveryCount);
    await library.charge(context.inboxTransaction(), order.orderId);
  }
}

@Injectable()
class ConcurrentBillingListener {
  @MMMQListener('order.*', { consumerId: 'billing.grouped', inbox: true, concurrency: 20 })
  async onOrder(order: { orderId: string }, context: MessageContext): Promise<void> {
    attempts.push(context.deliveryCount);
    await library.charge(context.inboxTransaction(), order.orderId);
  }
}

@Injectable()
class UnguardedBillingListener {
  private readonly transaction = failingAfterFirstCommit(library.transaction);

  @MMMQListener('order.*', { consumerId: 'billing.unguarded' })
  async onOrder(order: { orderId: string }, context: MessageContext): Promise<void> {
    attempts.push(context.deliveryCount);
    await this.transaction((tx) => library.charge(tx, order.orderId));
  }
}

/** Transactions the inbox opened. */
let transactions = 0;

/** Commits, then fails the first time, as when the connection is lost while COMMIT's answer is on its way. */
function failingAfterFirstCommit(transaction: TransactionRunner<any>): TransactionRunner<any> {
  let failures = 1;
  return async (work) => {
    transactions++;
    const result = await transaction(work);
    if (failures-- > 0) throw new Error('connection lost after COMMIT');
    return result;
  };
}

const libraries: Record<string, () => Promise<Library>> = {
  async typeorm() {
    const dataSource = await new DataSource({ type: 'postgres', url: TEST_DATABASE_URL }).initialize();
    return {
      adapter: typeOrmAdapter,
      transaction: (work) => dataSource.transaction(work),
      charge: (tx, orderId) => (tx as EntityManager).query(`INSERT INTO "${db.schema}".charges (order_id) VALUES ($1)`, [orderId]),
      close: () => dataSource.destroy(),
    };
  },
  async pg() {
    return {
      adapter: pgAdapter,
      transaction: pgTransaction(db.pool),
      charge: (tx, orderId) => (tx as PoolClient).query(`INSERT INTO "${db.schema}".charges (order_id) VALUES ($1)`, [orderId]),
      close: async () => undefined,
    };
  },
};

describe.each(Object.keys(libraries))('@MMMQListener({ inbox: true }) with a real broker and PostgreSQL (%s)', (name) => {
  let broker: BrokerApp;
  let app: INestApplicationContext | undefined;
  const charges = async () => (await db.pool.query<{ order_id: string }>(`SELECT order_id FROM "${db.schema}".charges`)).rows;

  async function startConsumer(listener: Type, inbox: Pick<MmmqInboxOptions, 'groupCommit'> = {}): Promise<INestApplicationContext> {
    @Module({
      imports: [
        MmmqConsumerModule.forRoot({
          app: 'billing',
          broker: broker.url,
          delivery: 'pull',
          registration: { backoffMs: 50 },
          pull: { waitMs: 500 },
          workers: { max: 20 },
        }),
        MmmqInboxModule.forRoot({
          adapter: library.adapter,
          transaction: failingAfterFirstCommit(library.transaction),
          schema: db.schema,
          ...inbox,
        }),
      ],
      providers: [listener],
    })
    class BillingModule {}
    app = await NestFactory.createApplicationContext(BillingModule, { abortOnError: false });
    const health = app.get(MmmqConsumerHealthIndicator);
    await waitFor(() => health.check().status === 'up', { message: 'the dispatcher to be registered' });
    return app;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query(`CREATE TABLE "${db.schema}".charges (id serial PRIMARY KEY, order_id text NOT NULL)`);
    library = await libraries[name]();
  });
  afterAll(async () => {
    await library.close();
    await db.drop();
  });
  beforeEach(async () => {
    attempts.length = 0;
    transactions = 0;
    await db.pool.query(`TRUNCATE "${db.schema}".charges, "${db.schema}".mmmq_inbox`);
    broker = await startBroker({ delivery: FAST_BACKOFF });
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await broker.close();
  });

  it('charges once when the message is delivered twice: the second delivery finds the inbox row and is acknowledged', async () => {
    await startConsumer(BillingListener);
    await broker.publish('order.created', { orderId: 'o-1' });
    await broker.caughtUp('billing.orders', 'order.created');
    // The first delivery committed but failed after COMMIT, so the broker delivered again; the handler ran once.
    expect(attempts).toEqual([1]);
    expect(await charges()).toEqual([{ order_id: 'o-1' }]);
    const subscription = await broker.subscription('billing.orders', 'order.created');
    expect(subscription.stats.redelivered).toBeGreaterThanOrEqual(1);
    expect(await broker.deadLetters('billing.orders')).toEqual([]);
  });

  it('with groupCommit, deliveries share transactions and each order is charged once, even when a group loses its COMMIT answer', async () => {
    const orders = Array.from({ length: 40 }, (_, i) => ({ orderId: `o-${String(i).padStart(2, '0')}` }));
    await broker.publishAll('order.created', orders);
    await startConsumer(ConcurrentBillingListener, { groupCommit: true });
    await broker.caughtUp('billing.grouped', 'order.created');
    // The first group committed but failed after COMMIT: its deliveries ran again alone, found their rows, were acked.
    expect(attempts.every((deliveryCount) => deliveryCount === 1)).toBe(true);
    expect((await charges()).map((row) => row.order_id).sort()).toEqual(orders.map((order) => order.orderId));
    expect(transactions).toBeLessThan(orders.length);
    expect(await broker.deadLetters('billing.grouped')).toEqual([]);
  });

  it('without the inbox the same double delivery charges twice (why the inbox exists)', async () => {
    await startConsumer(UnguardedBillingListener);
    await broker.publish('order.created', { orderId: 'o-1' });
    await broker.caughtUp('billing.unguarded', 'order.created');
    expect(attempts).toEqual([1, 2]);
    expect(await charges()).toEqual([{ order_id: 'o-1' }, { order_id: 'o-1' }]);
  });
});

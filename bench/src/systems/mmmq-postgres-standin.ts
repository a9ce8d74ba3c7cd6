/**
 * STAND-IN, to be deleted when issue 17's @mmmq/postgres (Outbox, OutboxRelay, Inbox) is merged: the planned API of
 * that package, just enough for the bench to run today, implemented with the bench's own outbox SQL
 * ({@link OutboxTables}, {@link PollingRelay}: the same as the RabbitMQ side's), so until then the two sides differ
 * only in the broker and its client. `mmmq-outbox.ts` then imports these names from '@mmmq/postgres' instead (and the
 * bench gains the dependency `"@mmmq/postgres": "workspace:^"`).
 */
import type { Producer } from '@mmmq/producer';
import type { Pool, PoolClient } from 'pg';
import { OutboxTables } from './outbox-tables';
import { PollingRelay } from './polling-relay';

/** @mmmq/postgres's table names (migrations/0001_outbox.sql, 0002_inbox.sql). */
const TABLES = { outbox: 'mmmq_outbox', inbox: 'mmmq_inbox' };
const tablesOf = (schema: string) => new OutboxTables(schema, TABLES);

/** The planned `SqlAdapter<Tx>` for `pg`: a client inside `BEGIN`. */
export const pgAdapter = { name: 'pg' } as const;

/** The planned `migrate(pool, { schema })`: the outbox and inbox tables in `schema`. */
export async function migrate(pool: Pool, options: { schema: string }): Promise<void> {
  await tablesOf(options.schema).create(pool);
}

/** The planned `new Outbox({ adapter, schema })`; `add` writes in the caller's transaction. */
export class Outbox {
  private readonly tables: OutboxTables;

  constructor(options: { adapter: typeof pgAdapter; schema: string }) {
    this.tables = tablesOf(options.schema);
  }

  async add(tx: PoolClient, topic: string, content: unknown, options: { id: string }): Promise<{ id: string }> {
    await this.tables.add(tx, options.id, topic, JSON.stringify(content));
    return { id: options.id };
  }
}

/** The planned `OutboxRelay`: leases batches and publishes each as one atomic `produceBatch` with the rows' ids. */
export class OutboxRelay {
  private readonly relay: PollingRelay;

  constructor(options: { producer: Producer; schema: string; batchSize: number; leaseMs: number }) {
    this.relay = new PollingRelay(tablesOf(options.schema), async (rows) => {
      await options.producer.produceBatch(
        rows.map((row) => ({ topic: row.topic, content: JSON.parse(row.content) as unknown, id: row.messageId })),
      );
    });
  }

  start(): Promise<void> {
    return this.relay.start();
  }

  close(): Promise<void> {
    return this.relay.close();
  }
}

/** The planned `Inbox.process(tx, messageId, consumerId, sideEffect)`. */
export class Inbox {
  private readonly tables: OutboxTables;

  constructor(options: { adapter: typeof pgAdapter; schema: string }) {
    this.tables = tablesOf(options.schema);
  }

  async process<T>(
    tx: PoolClient,
    messageId: string,
    consumerId: string,
    sideEffect: () => Promise<T>,
  ): Promise<{ status: 'processed'; result: T } | { status: 'duplicate' }> {
    if (!(await this.tables.reserve(tx, messageId, consumerId))) return { status: 'duplicate' };
    return { status: 'processed', result: await sideEffect() };
  }
}

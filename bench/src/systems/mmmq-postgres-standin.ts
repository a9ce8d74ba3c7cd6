/**
 * STAND-IN, to be deleted once issue 17's @mmmq/postgres (helpers' branches: `Outbox`, `OutboxRelay`, `Inbox`) is
 * merged: the signatures that package exports, just enough for the bench to run before the merge, implemented with
 * the bench's own outbox SQL ({@link OutboxTables}, {@link PollingRelay}: the same loop and statements as the RabbitMQ
 * side's), so until then the two sides differ only in the broker and its client. After the merge `mmmq-outbox.ts`
 * imports these names from '@mmmq/postgres' instead, and bench/package.json gains `"@mmmq/postgres": "workspace:^"`.
 */
import type { Producer } from '@mmmq/producer';
import type { ClientBase, Pool, PoolConfig } from 'pg';
import { OutboxTables } from './outbox-tables';
import { PollingRelay } from './polling-relay';

/** @mmmq/postgres's outbox table (migrations/0001_outbox.sql). */
export const OUTBOX_TABLE = 'mmmq_outbox';
const tablesOf = (schema: string) => new OutboxTables(schema, { outbox: OUTBOX_TABLE, inbox: 'mmmq_inbox' });

/** `SqlAdapter<ClientBase>`: a `pg` client inside `BEGIN`. */
export const pgAdapter = { name: 'pg' } as const;

/** `migrate(pool, { schema })`: the outbox and inbox tables in `schema`. */
export async function migrate(pool: Pool, options: { schema: string }): Promise<void> {
  await tablesOf(options.schema).create(pool);
}

/** `new Outbox({ adapter, schema })`; `add` writes in the caller's transaction and resolves with the id. */
export class Outbox<Tx extends ClientBase> {
  private readonly tables: OutboxTables;

  constructor(options: { adapter: typeof pgAdapter; schema: string }) {
    this.tables = tablesOf(options.schema);
  }

  async add(tx: Tx, topic: string, content: unknown, options: { id: string }): Promise<string> {
    await this.tables.add(tx, options.id, topic, JSON.stringify(content));
    return options.id;
  }
}

/**
 * `new OutboxRelay({ connection, producer, schema, batchSize, leaseMs })`: publishes each leased batch as one atomic
 * `produceBatch` with the rows' ids. Batch size, lease and connection are the bench's constants here.
 */
export class OutboxRelay {
  private readonly relay: PollingRelay;

  constructor(options: { connection: PoolConfig; producer: Producer; schema: string; batchSize: number; leaseMs: number }) {
    this.relay = new PollingRelay(tablesOf(options.schema), async (rows) => {
      await options.producer.produceBatch(
        rows.map((row) => ({ topic: row.topic, id: row.messageId, content: JSON.parse(row.content) as unknown })),
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

/** `new Inbox({ adapter, schema })`; `process(tx, messageId, consumerId, sideEffect)`. */
export class Inbox<Tx extends ClientBase> {
  private readonly tables: OutboxTables;

  constructor(options: { adapter: typeof pgAdapter; schema: string }) {
    this.tables = tablesOf(options.schema);
  }

  async process<T>(
    tx: Tx,
    messageId: string,
    consumerId: string,
    sideEffect: (tx: Tx) => Promise<T>,
  ): Promise<{ status: 'processed'; result: T } | { status: 'duplicate' }> {
    if (!(await this.tables.reserve(tx, messageId, consumerId))) return { status: 'duplicate' };
    return { status: 'processed', result: await sideEffect(tx) };
  }
}

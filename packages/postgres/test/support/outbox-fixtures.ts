import { pgAdapter } from '../../src/sql/pg-adapter';
import { Outbox } from '../../src/outbox/outbox';
import type { OutboxMessageInput } from '../../src/outbox/outbox-message';
import type { OutboxRelayOptions } from '../../src/relay/outbox-relay.options';
import { OutboxRelay } from '../../src/relay/outbox-relay';
import { createTestDatabase, TEST_DATABASE_URL, TestDatabase } from './test-database';

/** An outbox row as the tests read it back. */
export interface OutboxRecord {
  message_id: string;
  topic: string;
  content: string;
  status: string;
  attempts: number;
  lease_owner: string | null;
  lease_until: Date | null;
  broker_offset: string | null;
  failure_reason: string | null;
  published_at: Date | null;
  aggregate_id: string | null;
}

/** Every outbox row, in order of writing. */
export async function outboxRows(db: TestDatabase): Promise<OutboxRecord[]> {
  const { rows } = await db.pool.query<OutboxRecord>(`SELECT * FROM "${db.schema}".mmmq_outbox ORDER BY position`);
  return rows;
}

/** Adds `messages` in a transaction of their own, committed; resolves with their ids. */
export async function addCommitted(db: TestDatabase, messages: OutboxMessageInput[]): Promise<string[]> {
  const outbox = new Outbox({ adapter: pgAdapter, schema: db.schema });
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    const ids = await outbox.addMany(client, messages);
    await client.query('COMMIT');
    return ids;
  } finally {
    client.release();
  }
}

/** A relay on the test schema publishing to `broker`, quick to retry; not started. */
export function testRelay(db: TestDatabase, broker: string, options: Partial<OutboxRelayOptions> = {}): OutboxRelay {
  return new OutboxRelay({
    connection: TEST_DATABASE_URL,
    producer: { broker, maxRetryCount: 0, timeoutMs: 5_000 },
    schema: db.schema,
    retry: { initialMs: 50, maxMs: 200 },
    pollIntervalMs: 200,
    retention: false,
    ...options,
  });
}

interface Closable {
  close(): Promise<void>;
}

/** A test file's outbox table: {@link useOutboxTable}. */
export interface OutboxTable {
  /** The file's own migrated schema (available from `beforeAll` on). */
  readonly db: TestDatabase;
  /** Closes `value` after the current test (in reverse order of registration); returns it. */
  closeAfterTest<T extends Closable>(value: T): T;
}

/**
 * Gives the calling test file a migrated schema of its own, dropped after the file; after each test it closes what
 * the test registered and empties the outbox, so a row one test left AMBIGUOUS is not leased by the next.
 */
export function useOutboxTable(): OutboxTable {
  let db: TestDatabase | undefined;
  const closing: Closable[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    for (const closable of closing.splice(0).reverse()) await closable.close();
    await db?.pool.query(`DELETE FROM "${db.schema}".mmmq_outbox`);
  });
  afterAll(async () => {
    await db?.drop();
  });
  return {
    get db() {
      if (db === undefined) throw new Error('useOutboxTable(): the database is there from beforeAll on');
      return db;
    },
    closeAfterTest(value) {
      closing.push(value);
      return value;
    },
  };
}

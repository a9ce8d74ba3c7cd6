import { pgAdapter } from '../../src/sql/pg-adapter';
import { Outbox } from '../../src/outbox/outbox';
import type { OutboxMessageInput } from '../../src/outbox/outbox-message';
import type { OutboxRelayOptions } from '../../src/relay/outbox-relay.options';
import { OutboxRelay } from '../../src/relay/outbox-relay';
import { TEST_DATABASE_URL, TestDatabase } from './test-database';

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

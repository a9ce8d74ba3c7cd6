import { migrate } from '@mmmq/postgres';
import { Client } from 'pg';

// One key for the example's tables: two instances starting together create them once.
const TABLES_LOCK_KEY = 'mmmq-exactly-once-example-tables';

/**
 * The example's own tables. Plain SQL rather than TypeORM's `synchronize`, which is unsafe with several instances
 * starting at once; a real application would use its migration tool. `schema` is a checked identifier.
 */
function appTables(schema: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS "${schema}".orders (
       id uuid PRIMARY KEY,
       item text NOT NULL,
       amount numeric(12, 2) NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now()
     )`,
    `CREATE TABLE IF NOT EXISTS "${schema}".charges (
       id serial PRIMARY KEY,
       order_id uuid NOT NULL,
       amount numeric(12, 2) NOT NULL,
       message_id text NOT NULL,
       delivery_count integer NOT NULL,
       charged_at timestamptz NOT NULL DEFAULT now()
     )`,
  ];
}

/**
 * Brings `schema` up to date at start-up: MMMQ's outbox and inbox tables (`migrate()` of `@mmmq/postgres`, which
 * also creates the schema), then the example's `orders` and `charges`. Idempotent.
 */
export async function prepareDatabase(databaseUrl: string, schema: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await migrate(client, { schema });
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [TABLES_LOCK_KEY]);
      for (const statement of appTables(schema)) await client.query(statement);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    await client.end();
  }
}

import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { migrate } from '../../src/migrations/migrate';

/** The PostgreSQL the tests use: .ci/run starts it on 127.0.0.1:5432 (trust auth, database `test`). */
export const TEST_DATABASE_URL = process.env.MMMQ_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  pool: Pool;
  /** A schema of this test's own, migrated, so tests run side by side without seeing each other's rows. */
  schema: string;
  /** Drops the schema and ends the pool. */
  drop(): Promise<void>;
}

export async function createTestDatabase(options: { max?: number } = {}): Promise<TestDatabase> {
  const pool = new Pool({ connectionString: TEST_DATABASE_URL, max: options.max ?? 10 });
  const schema = `mmmq_test_${randomBytes(6).toString('hex')}`;
  await migrate(pool, { schema });
  return {
    pool,
    schema,
    async drop() {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { migrate } from '../src/migrations/migrate';
import { TEST_DATABASE_URL } from './support/test-database';

describe('migrate()', () => {
  const pool = new Pool({ connectionString: TEST_DATABASE_URL, max: 6 });
  const schema = `mmmq_test_${randomBytes(6).toString('hex')}`;

  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  it('applies each file once when several instances migrate at the same time, and nothing on later runs', async () => {
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => migrate(pool, { schema })));

    const applied = results.flatMap((result) => result.applied);
    expect(applied).toContain('0001_outbox.sql');
    expect(new Set(applied).size).toBe(applied.length);
    expect((await migrate(pool, { schema })).applied).toEqual([]);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".mmmq_outbox`);
    expect(rows[0].n).toBe(0);
  });

  it('creates the partial index the relay claims through', async () => {
    const { rows } = await pool.query<{ indexdef: string }>('SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = $2', [
      schema,
      'mmmq_outbox_claimable',
    ]);
    expect(rows[0].indexdef).toMatch(/WHERE \(status = ANY \(ARRAY\['PENDING'::text, 'AMBIGUOUS'::text\]\)\)/);
  });

  it('refuses a schema that is not a plain identifier', async () => {
    await expect(migrate(pool, { schema: 'x"; DROP TABLE y; --' })).rejects.toThrow(/schema must be a PostgreSQL identifier/);
  });
});

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClientBase, Pool, PoolClient } from 'pg';
import { quoteIdentifier } from '../sql/identifier';

/** Where the SQL files ship: `migrations/` at the package root, beside `dist/` and `src/`. */
export const MIGRATIONS_DIRECTORY = join(__dirname, '..', '..', 'migrations');

/** The schema the tables go in unless `schema` says otherwise. */
export const DEFAULT_SCHEMA = 'public';

export interface MigrateOptions {
  /** The schema that holds the outbox and inbox tables (created if missing). Default {@link DEFAULT_SCHEMA}. */
  schema?: string;
}

export interface MigrateResult {
  /** The files applied by this call, in order (none when the schema was up to date). */
  applied: string[];
}

// One key for every MMMQ migration: two application instances starting together apply each file once.
const MIGRATION_LOCK_KEY = 'mmmq-postgres-migrations';

/**
 * Brings the schema up to date with the SQL files in {@link MIGRATIONS_DIRECTORY}, applied in name order, each
 * once (recorded in `mmmq_migrations`), all in one transaction under an advisory lock. Idempotent: safe to call
 * at every start of every instance.
 */
export async function migrate(db: Pool | ClientBase, options: MigrateOptions = {}): Promise<MigrateResult> {
  const schema = quoteIdentifier('schema', options.schema ?? DEFAULT_SCHEMA);
  const files = (await readdir(MIGRATIONS_DIRECTORY)).filter((name) => name.endsWith('.sql')).sort();
  const pooled: PoolClient | undefined = 'totalCount' in db ? await db.connect() : undefined;
  const client = pooled ?? (db as ClientBase);
  try {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [MIGRATION_LOCK_KEY]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(`SET LOCAL search_path TO ${schema}`);
      await client.query(
        'CREATE TABLE IF NOT EXISTS mmmq_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const done = new Set((await client.query<{ name: string }>('SELECT name FROM mmmq_migrations')).rows.map((row) => row.name));
      const applied: string[] = [];
      for (const file of files.filter((name) => !done.has(name))) {
        await client.query(await readFile(join(MIGRATIONS_DIRECTORY, file), 'utf8'));
        await client.query('INSERT INTO mmmq_migrations (name) VALUES ($1)', [file]);
        applied.push(file);
      }
      await client.query('COMMIT');
      return { applied };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    pooled?.release();
  }
}

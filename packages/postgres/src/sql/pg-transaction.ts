import type { Pool, PoolClient } from 'pg';

/** Runs `work` in a transaction of the user's database library and resolves with its result once committed. */
export type TransactionRunner<Tx> = <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;

/**
 * A {@link TransactionRunner} for a `pg` pool: `BEGIN`, `work(client)`, `COMMIT` — or `ROLLBACK` and the error when
 * `work` throws. The TypeORM equivalent is `(work) => dataSource.transaction(work)`; Kysely's is
 * `(work) => db.transaction().execute(work)`.
 */
export function pgTransaction(pool: Pool): TransactionRunner<PoolClient> {
  return async (work) => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      try {
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      }
    } finally {
      // A connection that could not roll back is in an unknown state: destroyed, not returned to the pool.
      client.release(broken);
    }
  };
}

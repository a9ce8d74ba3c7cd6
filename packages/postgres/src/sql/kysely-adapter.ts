import { CompiledQuery, type Transaction } from 'kysely';
import type { SqlAdapter } from './sql-adapter';

/** Kysely on PostgreSQL: the `Transaction` that `db.transaction().execute(async (trx) => …)` hands out. */
export const kyselyAdapter: SqlAdapter<Transaction<unknown>> = {
  name: 'kysely',
  async query<R extends object>(trx: Transaction<unknown>, text: string, values: readonly unknown[] = []): Promise<R[]> {
    if (!trx.isTransaction) {
      throw new Error('kyselyAdapter: expected the Transaction of db.transaction().execute(async (trx) => …), got a Kysely instance');
    }
    const result = await trx.executeQuery<R>(CompiledQuery.raw(text, [...values]));
    return [...result.rows];
  },
};

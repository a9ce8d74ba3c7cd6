import { CompiledQuery, type Transaction } from 'kysely';
import type { SqlAdapter } from './sql-adapter';

/**
 * Any Kysely transaction, whatever its database type. `Transaction` is invariant in that type (it both takes and
 * returns it), so `Transaction<unknown>` would refuse the user's `Transaction<Database>`; only `any` accepts all.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyKyselyTransaction = Transaction<any>;

/** Kysely on PostgreSQL: the `Transaction` that `db.transaction().execute(async (trx) => …)` hands out. */
export const kyselyAdapter: SqlAdapter<AnyKyselyTransaction> = {
  name: 'kysely',
  async query<R extends object>(trx: AnyKyselyTransaction, text: string, values: readonly unknown[] = []): Promise<R[]> {
    if (!trx.isTransaction) {
      throw new Error('kyselyAdapter: expected the Transaction of db.transaction().execute(async (trx) => …), got a Kysely instance');
    }
    const result = await trx.executeQuery<R>(CompiledQuery.raw(text, [...values]));
    return [...result.rows];
  },
};

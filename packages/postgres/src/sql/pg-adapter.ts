import type { ClientBase } from 'pg';
import type { SqlAdapter } from './sql-adapter';

/**
 * A `pg` client (a `PoolClient` or a `Client`) on which the caller has run `BEGIN`. `pg` cannot tell whether a
 * transaction is open, so this adapter cannot check it: a statement outside one commits on its own.
 */
export const pgAdapter: SqlAdapter<ClientBase> = {
  name: 'pg',
  async query<R extends object>(client: ClientBase, text: string, values: readonly unknown[] = []): Promise<R[]> {
    const result = await client.query<R>(text, values as unknown[]);
    return result.rows;
  },
};

import type { EntityManager, QueryRunner } from 'typeorm';
import type { SqlAdapter } from './sql-adapter';

/**
 * TypeORM on PostgreSQL: the `EntityManager` that `dataSource.transaction(async (manager) => …)` hands out, or a
 * `QueryRunner` after `startTransaction()`. Refuses one outside a transaction.
 */
export const typeOrmAdapter: SqlAdapter<EntityManager | QueryRunner> = {
  name: 'typeorm',
  async query<R extends object>(tx: EntityManager | QueryRunner, text: string, values: readonly unknown[] = []): Promise<R[]> {
    const runner = 'manager' in tx && 'startTransaction' in tx ? tx : (tx as EntityManager).queryRunner;
    if (!runner?.isTransactionActive) {
      throw new Error(
        'typeOrmAdapter: the EntityManager or QueryRunner is not inside a transaction; ' +
          'use the manager of dataSource.transaction(async (manager) => …) or a QueryRunner after startTransaction()',
      );
    }
    // A structured result: TypeORM's plain `query()` answers UPDATE and DELETE with [rows, count].
    const result = await runner.query(text, values as unknown[], true);
    return result.records as R[];
  },
};

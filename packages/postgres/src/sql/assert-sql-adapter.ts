import type { MmmqError } from '@mmmq/core';
import type { SqlAdapter } from './sql-adapter';

/**
 * `adapter`, checked to be a {@link SqlAdapter}; the outbox and the inbox each throw their own options error.
 * @throws the `error` class, naming the option
 */
export function assertSqlAdapter<Tx>(adapter: unknown, error: new (message: string) => MmmqError): SqlAdapter<Tx> {
  const candidate = adapter as Partial<SqlAdapter<Tx>> | undefined;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.query !== 'function' || typeof candidate.name !== 'string') {
    throw new error('adapter must be a SqlAdapter { name, query(tx, text, values) }, such as pgAdapter, typeOrmAdapter or kyselyAdapter');
  }
  return candidate as SqlAdapter<Tx>;
}

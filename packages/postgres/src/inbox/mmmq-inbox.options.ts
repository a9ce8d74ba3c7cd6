import type { SqlAdapter } from '../sql/sql-adapter';
import type { TransactionRunner } from '../sql/pg-transaction';
import type { InboxGroupCommitOptions } from './inbox-group-commit';

/** When old inbox rows are deleted. */
export interface InboxRetentionOptions {
  /**
   * How long a processed message is remembered (ms). Must exceed the broker's redelivery window: the consumer warns
   * at bootstrap when it does not. Default {@link DEFAULT_INBOX_RETENTION_MS} (14 days).
   */
  maxAgeMs?: number;
  /** How often the job runs (ms); 0 never (run `InboxRetention.purge()` yourself). Default 1 hour. */
  intervalMs?: number;
  /** Rows deleted per statement. Default {@link DEFAULT_INBOX_RETENTION_BATCH_SIZE} (1000). */
  batchSize?: number;
}

/**
 * `MmmqInboxModule.forRoot({...})`: how `@MMMQListener(pattern, { inbox: true })` listeners reach the application's
 * database. `adapter` and `transaction` must speak of the same transaction type.
 *
 * @example TypeORM: `{ adapter: typeOrmAdapter, transaction: (work) => dataSource.transaction(work) }`
 * @example pg: `{ adapter: pgAdapter, transaction: pgTransaction(pool) }`
 */
export interface MmmqInboxOptions<Tx = unknown> {
  /** How the inbox runs its SQL in the transaction (`pgAdapter`, `typeOrmAdapter`, `kyselyAdapter`). */
  adapter: SqlAdapter<Tx>;
  /** Opens a transaction of the application's library, runs the work in it, commits (rolls back when it throws). */
  transaction: TransactionRunner<Tx>;
  /** The schema `migrate()` created the tables in. Default `public`. */
  schema?: string;
  retention?: InboxRetentionOptions;
  /**
   * Deliveries that arrive together share one transaction (`true`, or limits): far fewer commits, at the price that
   * a handler may run again when its group rolls back (only what it writes in the transaction counts). Default
   * `false`: one transaction per delivery. See docs/exactly-once.md, "Group commit".
   */
  groupCommit?: boolean | InboxGroupCommitOptions;
}

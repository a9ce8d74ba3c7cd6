import { MAX_TIMER_MS, optionChecks } from '@mmmq/core';
import type { SqlAdapter } from '../sql/sql-adapter';
import type { TransactionRunner } from '../sql/pg-transaction';
import { assertSqlAdapter } from '../sql/assert-sql-adapter';
import { schemaOf } from './inbox';
import { DEFAULT_INBOX_RETENTION_BATCH_SIZE, DEFAULT_INBOX_RETENTION_INTERVAL_MS, DEFAULT_INBOX_RETENTION_MS } from './inbox-retention';
import { DEFAULT_INBOX_GROUP_MAX_MESSAGES, DEFAULT_INBOX_GROUP_MAX_TRANSACTIONS } from './inbox-group-commit';
import { InvalidInboxOptionsError } from './invalid-inbox-options.error';
import type { MmmqInboxOptions } from './mmmq-inbox.options';

const { positiveInteger, nonNegativeInteger, plainObject, refuseUnknownFields } = optionChecks(InvalidInboxOptionsError);

const FIELDS = new Set(['adapter', 'transaction', 'schema', 'retention', 'groupCommit']);
const RETENTION_FIELDS = new Set(['maxAgeMs', 'intervalMs', 'batchSize']);
const GROUP_COMMIT_FIELDS = new Set(['maxMessages', 'maxTransactions']);
/** A bound against typos in units (seconds given as milliseconds the other way round): ten years. */
const MAX_RETENTION_MS = 10 * 365 * 24 * 60 * 60 * 1000;

/** The options with every default applied. */
export interface ResolvedInboxOptions {
  adapter: SqlAdapter<unknown>;
  transaction: TransactionRunner<unknown>;
  /** Unquoted, as given (the inbox quotes it). */
  schema: string | undefined;
  /** Quoted. */
  quotedSchema: string;
  retention: { maxAgeMs: number; intervalMs: number; batchSize: number };
  /** `undefined`: one transaction per delivery. */
  groupCommit: { maxMessages: number; maxTransactions: number } | undefined;
}

/** Injection token of the {@link ResolvedInboxOptions}. */
export const MMMQ_INBOX_RESOLVED_OPTIONS = Symbol('MMMQ_INBOX_RESOLVED_OPTIONS');

/** @throws InvalidInboxOptionsError naming the first option that is missing, unknown or wrong */
export function resolveInboxOptions(options: MmmqInboxOptions): ResolvedInboxOptions {
  const record = plainObject('inbox options', options);
  refuseUnknownFields('inbox options', record, FIELDS);
  if (typeof options.transaction !== 'function') {
    throw new InvalidInboxOptionsError(
      'transaction must be a function that runs work in a transaction of your library, e.g. ' +
        '(work) => dataSource.transaction(work) (TypeORM) or pgTransaction(pool) (pg)',
    );
  }
  const retention = plainObject('retention', options.retention ?? {});
  refuseUnknownFields('retention', retention, RETENTION_FIELDS);
  return {
    adapter: assertSqlAdapter(options.adapter, InvalidInboxOptionsError),
    transaction: options.transaction,
    schema: options.schema,
    quotedSchema: schemaOf(options.schema),
    retention: {
      maxAgeMs: positiveInteger('retention.maxAgeMs', retention.maxAgeMs ?? DEFAULT_INBOX_RETENTION_MS, MAX_RETENTION_MS),
      intervalMs: nonNegativeInteger('retention.intervalMs', retention.intervalMs ?? DEFAULT_INBOX_RETENTION_INTERVAL_MS, MAX_TIMER_MS),
      batchSize: positiveInteger('retention.batchSize', retention.batchSize ?? DEFAULT_INBOX_RETENTION_BATCH_SIZE, 100_000),
    },
    groupCommit: resolveGroupCommit(options.groupCommit),
  };
}

function resolveGroupCommit(option: MmmqInboxOptions['groupCommit']): ResolvedInboxOptions['groupCommit'] {
  if (option === undefined || option === false) return undefined;
  const record = plainObject('groupCommit', option === true ? {} : option);
  refuseUnknownFields('groupCommit', record, GROUP_COMMIT_FIELDS);
  return {
    maxMessages: positiveInteger('groupCommit.maxMessages', record.maxMessages ?? DEFAULT_INBOX_GROUP_MAX_MESSAGES, 10_000),
    maxTransactions: positiveInteger('groupCommit.maxTransactions', record.maxTransactions ?? DEFAULT_INBOX_GROUP_MAX_TRANSACTIONS, 1_000),
  };
}

export type { SqlAdapter } from './sql/sql-adapter';
export { pgAdapter } from './sql/pg-adapter';
export { migrate, MIGRATIONS_DIRECTORY, DEFAULT_SCHEMA, type MigrateOptions, type MigrateResult } from './migrations/migrate';
export { pgTransaction, type TransactionRunner } from './sql/pg-transaction';
export { Inbox, type InboxOptions, type InboxOutcome } from './inbox/inbox';
export {
  InboxRetention,
  DEFAULT_INBOX_RETENTION_MS,
  DEFAULT_INBOX_RETENTION_INTERVAL_MS,
  DEFAULT_INBOX_RETENTION_BATCH_SIZE,
} from './inbox/inbox-retention';
export { InvalidInboxOptionsError } from './inbox/invalid-inbox-options.error';
export type { MmmqInboxOptions, InboxRetentionOptions } from './inbox/mmmq-inbox.options';
export { MMMQ_INBOX_OPTIONS } from './inbox/mmmq-inbox-module-definition';
export { MmmqInboxModule } from './inbox/mmmq-inbox.module';
export { PostgresListenerInbox } from './inbox/postgres-listener-inbox';

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
export {
  InboxGroupCommit,
  DEFAULT_INBOX_GROUP_MAX_MESSAGES,
  DEFAULT_INBOX_GROUP_MAX_TRANSACTIONS,
  type InboxGroupCommitOptions,
} from './inbox/inbox-group-commit';
export { InvalidInboxOptionsError } from './inbox/invalid-inbox-options.error';
export type { MmmqInboxOptions, InboxRetentionOptions } from './inbox/mmmq-inbox.options';
export { MMMQ_INBOX_OPTIONS } from './inbox/mmmq-inbox-module-definition';
export { MmmqInboxModule } from './inbox/mmmq-inbox.module';
export { PostgresListenerInbox } from './inbox/postgres-listener-inbox';
export { Outbox, type OutboxOptions } from './outbox/outbox';
export type { OutboxAddOptions, OutboxMessageInput } from './outbox/outbox-message';
export { OUTBOX_TABLE, OUTBOX_STATUSES, type OutboxStatus, outboxChannel } from './outbox/outbox-table';
export { MmmqOutboxModule, OutboxRelayHost } from './outbox/mmmq-outbox.module';
export { MMMQ_OUTBOX_OPTIONS } from './outbox/mmmq-outbox.module-definition';
export type { MmmqOutboxOptions } from './outbox/mmmq-outbox.options';
export { OutboxRelay, WRITERS_COMMITTING_RETRY_MS, type RelayResult } from './relay/outbox-relay';
export type { OutboxLease, OutboxRow } from './relay/outbox-row';
export {
  DEFAULT_RELAY_BATCH_SIZE,
  DEFAULT_RELAY_LEASE_MS,
  DEFAULT_RELAY_PRODUCER_MAX_RETRY_COUNT,
  DEFAULT_RELAY_PRODUCER_MAX_RETRY_DELAY_MS,
  DEFAULT_RELAY_POLL_INTERVAL_MS,
  DEFAULT_RELAY_RETRY_INITIAL_MS,
  DEFAULT_RELAY_RETRY_MAX_MS,
  DEFAULT_RELAY_RECONNECT_DELAY_MS,
  DEFAULT_OUTBOX_RETENTION_MAX_AGE_MS,
  DEFAULT_OUTBOX_RETENTION_INTERVAL_MS,
  DEFAULT_OUTBOX_RETENTION_BATCH_SIZE,
  type OutboxRelayOptions,
  type OutboxRetentionOptions,
} from './relay/outbox-relay.options';
export { MAX_RELAY_BATCH_SIZE } from './relay/outbox-relay-options.resolver';
export { InvalidOutboxOptionsError } from './errors/invalid-outbox-options.error';
export { DuplicateOutboxMessageError } from './errors/duplicate-outbox-message.error';

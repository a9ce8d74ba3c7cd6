import { quoteIdentifier } from '../sql/identifier';

/** The outbox table's name, in every schema (migrations/0001_outbox.sql). */
export const OUTBOX_TABLE = 'mmmq_outbox';

/** PostgreSQL's identifier limit; NOTIFY channel names are identifiers. */
const MAX_CHANNEL_LENGTH = 63;

/** The LISTEN/NOTIFY channel of the outbox in `schema`, as the table's trigger derives it. */
export function outboxChannel(schema: string): string {
  return `mmmq_outbox_${schema}`.slice(0, MAX_CHANNEL_LENGTH);
}

/** `"schema"."mmmq_outbox"`, for SQL text; the schema was checked by {@link quoteIdentifier}. */
export function qualifiedOutboxTable(schema: string): string {
  return `${quoteIdentifier('schema', schema)}.${OUTBOX_TABLE}`;
}

/** The row statuses: PENDING and AMBIGUOUS are claimable by the relay, PUBLISHED and FAILED are final. */
export const OUTBOX_STATUSES = ['PENDING', 'AMBIGUOUS', 'PUBLISHED', 'FAILED'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

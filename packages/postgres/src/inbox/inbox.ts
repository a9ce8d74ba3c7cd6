import { assertSqlAdapter } from '../sql/assert-sql-adapter';
import { assertConsumerId, assertMessageId } from '@mmmq/core';
import type { InboxKey, InboxOutcome } from '@mmmq/consumer';
import { DEFAULT_SCHEMA } from '../migrations/migrate';
import { quoteIdentifier } from '../sql/identifier';
import type { SqlAdapter } from '../sql/sql-adapter';
import { InvalidInboxOptionsError } from './invalid-inbox-options.error';

export type { InboxOutcome } from '@mmmq/consumer';

export interface InboxOptions<Tx> {
  /** How the inbox runs SQL in the caller's transaction (`pgAdapter`, `typeOrmAdapter`, `kyselyAdapter`). */
  adapter: SqlAdapter<Tx>;
  /** The schema `migrate()` created the tables in. Default {@link DEFAULT_SCHEMA}. */
  schema?: string;
}

/**
 * De-duplicates deliveries per consumer: `process()` reserves (message id, consumer id) in the caller's transaction
 * and runs the side effect in that same transaction, so the reservation and the effect commit together or not at
 * all. A reservation in a separate transaction would reopen the very window the inbox closes.
 */
export class Inbox<Tx> {
  private readonly adapter: SqlAdapter<Tx>;
  private readonly reserve: string;
  private readonly reserveKeys: string;

  /** @throws InvalidInboxOptionsError naming the option that is wrong */
  constructor(options: InboxOptions<Tx>) {
    this.adapter = assertSqlAdapter(options.adapter, InvalidInboxOptionsError);
    const table = `${schemaOf(options.schema)}.mmmq_inbox`;
    // ON CONFLICT waits for a concurrent, uncommitted reservation of the same key: it then inserts nothing if that
    // transaction committed (a duplicate) and inserts if it rolled back (this delivery processes the message).
    this.reserve = `INSERT INTO ${table} (message_id, consumer_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1 AS reserved`;
    // Sorted, so that two transactions reserving overlapping keys take their row locks in one order (no deadlock).
    this.reserveKeys =
      `INSERT INTO ${table} (message_id, consumer_id) SELECT m, c FROM unnest($1::text[], $2::text[]) AS k(m, c) ` +
      'ORDER BY m, c ON CONFLICT DO NOTHING RETURNING message_id, consumer_id';
  }

  /**
   * Reserves (messageId, consumerId) in `tx` and, unless another transaction reserved it already, runs `sideEffect`
   * with `tx`. The caller commits `tx` (or rolls it back: then the message counts as not processed). A throwing
   * side effect rejects with its error and the caller must roll back.
   * @throws InvalidMessageError / InvalidConsumerIdError for ids the broker would refuse
   */
  async process<T>(tx: Tx, messageId: string, consumerId: string, sideEffect: (tx: Tx) => Promise<T> | T): Promise<InboxOutcome<T>> {
    const values = [assertMessageId(messageId), assertConsumerId(consumerId)];
    const reserved = await this.adapter.query(tx, this.reserve, values);
    if (reserved.length === 0) return { status: 'duplicate' };
    return { status: 'processed', result: await sideEffect(tx) };
  }

  /**
   * Reserves every key in `tx` with one statement and tells, key by key, which were reserved here (the others were
   * processed or are being processed by another transaction). Keys must be distinct.
   * @throws InvalidMessageError / InvalidConsumerIdError for ids the broker would refuse
   */
  async reserveMany(tx: Tx, keys: readonly InboxKey[]): Promise<boolean[]> {
    const messageIds = keys.map((key) => assertMessageId(key.messageId));
    const consumerIds = keys.map((key) => assertConsumerId(key.consumerId));
    const rows = await this.adapter.query<{ message_id: string; consumer_id: string }>(tx, this.reserveKeys, [messageIds, consumerIds]);
    const reserved = new Set(rows.map((row) => keyOf({ messageId: row.message_id, consumerId: row.consumer_id })));
    return keys.map((key) => reserved.has(keyOf(key)));
  }
}

/** One string per inbox key (ids cannot contain a NUL). */
export function keyOf({ messageId, consumerId }: InboxKey): string {
  return `${messageId}\u0000${consumerId}`;
}

/** The quoted schema name. */
export function schemaOf(schema: string | undefined): string {
  try {
    return quoteIdentifier('schema', schema ?? DEFAULT_SCHEMA);
  } catch (error) {
    throw new InvalidInboxOptionsError((error as Error).message, { cause: error });
  }
}

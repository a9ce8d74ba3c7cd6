import { assertSqlAdapter } from '../sql/assert-sql-adapter';
import { DuplicateOutboxMessageError } from '../errors/duplicate-outbox-message.error';
import { InvalidOutboxOptionsError } from '../errors/invalid-outbox-options.error';
import { DEFAULT_SCHEMA } from '../migrations/migrate';
import type { SqlAdapter } from '../sql/sql-adapter';
import { isBare, OutboxAddOptions, OutboxMessageInput, OutboxRowInput, prepareOutboxMessage } from './outbox-message';
import { OUTBOX_TABLE, qualifiedOutboxTable } from './outbox-table';

export interface OutboxOptions<Tx> {
  /** How to run SQL in the caller's transaction: `pgAdapter`, `typeOrmAdapter`, `kyselyAdapter` or your own. */
  adapter: SqlAdapter<Tx>;
  /** The schema `migrate()` created the outbox table in. Default {@link DEFAULT_SCHEMA}. */
  schema?: string;
}

const COLUMNS = 'message_id, topic, content, headers, aggregate_type, aggregate_id, traceparent, tracestate';
const UNIQUE_VIOLATION = '23505';

/**
 * Writes messages into the outbox table inside the caller's own transaction, so that they are relayed to the
 * broker if and only if that transaction commits. Nothing is published here: the relay (`OutboxRelay`) does that,
 * with the same message id, after the commit.
 *
 * @typeParam Tx the transaction handle of the adapter's library (`PoolClient`, `EntityManager`, Kysely `Transaction`)
 */
export class Outbox<Tx = unknown> {
  private readonly adapter: SqlAdapter<Tx>;
  private readonly table: string;
  /** `add()`'s statements, built once: a plain VALUES row (the unnest form costs a fifth more per call). */
  private readonly insertOne: { bare: string; full: string };
  /** `addMany()`'s statement: one for any number of rows. */
  private readonly insertMany: string;

  /** @throws InvalidOutboxOptionsError naming the option */
  constructor(options: OutboxOptions<Tx>) {
    this.adapter = assertSqlAdapter(options?.adapter, InvalidOutboxOptionsError);
    try {
      this.table = qualifiedOutboxTable(options.schema ?? DEFAULT_SCHEMA);
    } catch (error) {
      throw new InvalidOutboxOptionsError((error as Error).message, { cause: error });
    }
    this.insertOne = {
      bare: `INSERT INTO ${this.table} (message_id, topic, content) VALUES ($1, $2, $3)`,
      full: `INSERT INTO ${this.table} (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    };
    // ORDER BY n gives the identity `position` the order of the call.
    this.insertMany =
      `INSERT INTO ${this.table} (${COLUMNS}) ` +
      'SELECT id, topic, content, headers::jsonb, aggregate_type, aggregate_id, traceparent, tracestate ' +
      'FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) ' +
      'WITH ORDINALITY AS m (id, topic, content, headers, aggregate_type, aggregate_id, traceparent, tracestate, n) ORDER BY n';
  }

  /**
   * Adds one message to the outbox in `tx` and resolves with its id (a random UUID unless `options.id` gives one).
   * @throws MmmqValidationError (nothing written) for an invalid topic, content, id or headers
   * @throws DuplicateOutboxMessageError when the id is taken (the transaction is then aborted)
   */
  async add(tx: Tx, topic: string, content: unknown, options?: OutboxAddOptions): Promise<string> {
    const row = prepareOutboxMessage(topic, content, options);
    // Most messages have no headers, aggregate or trace context: the defaults of those columns are theirs.
    const bare = isBare(row);
    const values = bare
      ? [row.id, row.topic, row.content]
      : [row.id, row.topic, row.content, JSON.stringify(row.headers), row.aggregateType, row.aggregateId, row.traceparent, row.tracestate];
    await this.run(tx, bare ? this.insertOne.bare : this.insertOne.full, values, [row]);
    return row.id;
  }

  /**
   * Adds several messages in one statement, in this order (which the relay keeps), and resolves with their ids.
   * All are validated before anything is written; an error names the index, `messages[i]: …`.
   * @throws MmmqValidationError, DuplicateOutboxMessageError as {@link add}
   */
  async addMany(tx: Tx, messages: readonly OutboxMessageInput[]): Promise<string[]> {
    if (!Array.isArray(messages)) throw new TypeError('outbox.addMany() takes an array of { topic, content, ...options }');
    const rows = messages.map(({ topic, content, ...options }, index) =>
      atIndex(index, () => prepareOutboxMessage(topic, content, options)),
    );
    const seen = new Set<string>();
    for (const row of rows) {
      if (seen.has(row.id)) throw new DuplicateOutboxMessageError(row.id);
      seen.add(row.id);
    }
    if (rows.length > 0) await this.insert(tx, rows);
    return rows.map((row) => row.id);
  }

  private async insert(tx: Tx, rows: readonly OutboxRowInput[]): Promise<void> {
    const columns = [
      rows.map((row) => row.id),
      rows.map((row) => row.topic),
      rows.map((row) => row.content),
      rows.map((row) => JSON.stringify(row.headers)),
      rows.map((row) => row.aggregateType),
      rows.map((row) => row.aggregateId),
      rows.map((row) => row.traceparent),
      rows.map((row) => row.tracestate),
    ];
    await this.run(tx, this.insertMany, columns, rows);
  }

  private async run(tx: Tx, text: string, values: unknown[], rows: readonly OutboxRowInput[]): Promise<void> {
    try {
      await this.adapter.query(tx, text, values);
    } catch (error) {
      const duplicate = duplicateId(error, rows);
      throw duplicate === undefined ? error : new DuplicateOutboxMessageError(duplicate, { cause: error });
    }
  }
}

function atIndex<T>(index: number, prepare: () => T): T {
  try {
    return prepare();
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    const ErrorClass = error.constructor as new (message: string, options?: { cause?: unknown }) => Error;
    throw new ErrorClass(`messages[${index}]: ${error.message}`, { cause: error });
  }
}

/** The id that broke the primary key, when that is what failed; TypeORM wraps pg's error in `driverError`. */
function duplicateId(error: unknown, rows: readonly OutboxRowInput[]): string | undefined {
  const failure = error as { code?: string; constraint?: string; detail?: string; driverError?: unknown } | undefined;
  const pgError = (failure?.driverError ?? failure) as { code?: string; constraint?: string; detail?: string } | undefined;
  if (pgError?.code !== UNIQUE_VIOLATION || pgError.constraint !== `${OUTBOX_TABLE}_pkey`) return undefined;
  return rows.find((row) => pgError.detail?.includes(`(${row.id})`))?.id ?? rows[0].id;
}

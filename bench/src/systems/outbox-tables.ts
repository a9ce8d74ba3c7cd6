import type { ClientBase, Pool } from 'pg';

/**
 * The outbox and inbox tables of the pattern the bench builds itself on RabbitMQ, in the shape of @mmmq/postgres's
 * (migrations/0001_outbox.sql, 0003_outbox_notify_waiting.sql): the message id as primary key, a write position,
 * status and lease columns, a partial index on the claimable rows and a trigger that NOTIFYs at commit only while a
 * relay sleeps (holds {@link OutboxTables.waitingLock} exclusively): a NOTIFY per commit would serialise the writers'
 * commits. The inbox is one row per (message, consumer).
 */
export class OutboxTables {
  readonly outbox: string;
  readonly inbox: string;
  /** The LISTEN/NOTIFY channel of this schema's outbox. */
  readonly channel: string;
  /** The two keys of the advisory lock a sleeping relay holds, as SQL expressions. */
  readonly waitingLock: string;

  /**
   * @param schema an identifier the workload made (letters, digits, `_`), quoted here
   * @param names of the two tables in it
   */
  constructor(
    private readonly schema: string,
    names: { outbox: string; inbox: string } = { outbox: 'outbox', inbox: 'inbox' },
  ) {
    this.outbox = `"${schema}".${names.outbox}`;
    this.inbox = `"${schema}".${names.inbox}`;
    this.channel = `${names.outbox}_${schema}`.slice(0, 63);
    this.waitingLock = `hashtext('bench_outbox'), hashtext('${this.channel}')`;
  }

  async create(pool: Pool): Promise<void> {
    await pool.query(`
      CREATE TABLE ${this.outbox} (
        message_id text PRIMARY KEY,
        position bigint GENERATED ALWAYS AS IDENTITY,
        topic text NOT NULL,
        content text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'AMBIGUOUS', 'PUBLISHED', 'FAILED')),
        attempts integer NOT NULL DEFAULT 0,
        lease_owner text,
        lease_until timestamptz,
        published_at timestamptz
      );
      CREATE INDEX ON ${this.outbox} (position) WHERE status IN ('PENDING', 'AMBIGUOUS');
      CREATE FUNCTION "${this.schema}".notify_relays() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT pg_try_advisory_xact_lock_shared(${this.waitingLock}) THEN
          PERFORM pg_notify('${this.channel}', '');
        END IF;
        RETURN NULL;
      END;
      $$;
      CREATE CONSTRAINT TRIGGER notify_relays AFTER INSERT ON ${this.outbox} DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION "${this.schema}".notify_relays();
      CREATE TABLE ${this.inbox} (
        message_id text NOT NULL,
        consumer_id text NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (message_id, consumer_id)
      );
    `);
  }

  async add(client: ClientBase, messageId: string, topic: string, content: string): Promise<void> {
    await client.query(`INSERT INTO ${this.outbox} (message_id, topic, content) VALUES ($1, $2, $3)`, [messageId, topic, content]);
  }

  /**
   * Leases up to `limit` claimable rows, oldest first, for `leaseMs`; rows another relay holds locked are skipped
   * (`FOR UPDATE SKIP LOCKED`), so relays never lease the same row at once. Returned in write order.
   */
  async lease(pool: Pool, owner: string, limit: number, leaseMs: number): Promise<LeasedRow[]> {
    const { rows } = await pool.query<LeasedRow & { position: string }>(
      `UPDATE ${this.outbox} SET lease_owner = $1, lease_until = now() + $2 * interval '1 millisecond', attempts = attempts + 1
       WHERE message_id IN (
         SELECT message_id FROM ${this.outbox}
         WHERE status IN ('PENDING', 'AMBIGUOUS') AND (lease_until IS NULL OR lease_until < now())
         ORDER BY position LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING message_id AS "messageId", topic, content, position`,
      [owner, leaseMs, limit],
    );
    return rows.sort((a, b) => Number(a.position) - Number(b.position));
  }

  async markPublished(pool: Pool, owner: string, messageIds: string[]): Promise<void> {
    await pool.query(
      `UPDATE ${this.outbox} SET status = 'PUBLISHED', published_at = now(), lease_until = NULL
       WHERE message_id = ANY($1) AND lease_owner = $2`,
      [messageIds, owner],
    );
  }

  /** A publish that failed (or whose confirm never came): the rows may be published again, with the same ids. */
  async markAmbiguous(pool: Pool, owner: string, messageIds: string[]): Promise<void> {
    await pool.query(`UPDATE ${this.outbox} SET status = 'AMBIGUOUS', lease_until = NULL WHERE message_id = ANY($1) AND lease_owner = $2`, [
      messageIds,
      owner,
    ]);
  }

  async unpublished(pool: Pool): Promise<number> {
    const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${this.outbox} WHERE status <> 'PUBLISHED'`);
    return Number(rows[0].n);
  }

  /** Reserves the message for the consumer in `client`'s transaction; false when it was reserved (processed) already. */
  async reserve(client: ClientBase, messageId: string, consumerId: string): Promise<boolean> {
    const { rowCount } = await client.query(`INSERT INTO ${this.inbox} (message_id, consumer_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
      messageId,
      consumerId,
    ]);
    return rowCount === 1;
  }
}

export interface LeasedRow {
  messageId: string;
  topic: string;
  content: string;
}

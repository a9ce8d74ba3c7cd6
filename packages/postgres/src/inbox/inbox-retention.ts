import { Logger } from '@nestjs/common';
import type { SqlAdapter } from '../sql/sql-adapter';
import type { TransactionRunner } from '../sql/pg-transaction';

/**
 * How long a processed message is remembered: 14 days, far beyond the broker's default redelivery window (24 min,
 * `redeliveryWindowMs` of @mmmq/consumer), so that redeliveries after a long broker or consumer outage still meet
 * their row.
 */
export const DEFAULT_INBOX_RETENTION_MS = 14 * 24 * 60 * 60 * 1000;
/** How often the retention job runs. */
export const DEFAULT_INBOX_RETENTION_INTERVAL_MS = 60 * 60 * 1000;
/** Rows deleted per statement (each in its own short transaction), so a large backlog never holds locks for long. */
export const DEFAULT_INBOX_RETENTION_BATCH_SIZE = 1000;

export interface InboxRetentionSettings {
  /** The quoted schema of the inbox table. */
  schema: string;
  retentionMs: number;
  /** 0: never on a timer (call {@link InboxRetention.purge} yourself). */
  intervalMs: number;
  batchSize: number;
}

/** Deletes inbox rows older than the retention, in bounded batches, on a timer. */
export class InboxRetention<Tx> {
  private readonly logger = new Logger('MmmqInbox');
  private readonly deleteBatch: string;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private closed = false;

  constructor(
    private readonly adapter: SqlAdapter<Tx>,
    private readonly transaction: TransactionRunner<Tx>,
    private readonly settings: InboxRetentionSettings,
  ) {
    const table = `${settings.schema}.mmmq_inbox`;
    // SKIP LOCKED: several application instances purge side by side without waiting for each other.
    this.deleteBatch =
      `DELETE FROM ${table} WHERE (message_id, consumer_id) IN (SELECT message_id, consumer_id FROM ${table} ` +
      `WHERE processed_at < now() - $1 * interval '1 millisecond' ORDER BY processed_at LIMIT $2 FOR UPDATE SKIP LOCKED) ` +
      `RETURNING 1 AS deleted`;
  }

  /** Starts the timer (unless `intervalMs` is 0). */
  start(): void {
    if (this.settings.intervalMs === 0 || this.closed || this.timer !== undefined) return;
    this.timer = setInterval(() => void this.purgeLogged(), this.settings.intervalMs);
    this.timer.unref();
  }

  /** Deletes every row older than the retention, batch by batch; resolves with how many. One run at a time. */
  purge(): Promise<number> {
    this.running ??= this.deleteExpired().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Stops the timer and waits for a purge in progress. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  private async deleteExpired(): Promise<number> {
    const { retentionMs, batchSize } = this.settings;
    let total = 0;
    for (;;) {
      const deleted = await this.transaction((tx) => this.adapter.query(tx, this.deleteBatch, [retentionMs, batchSize]));
      total += deleted.length;
      if (deleted.length < batchSize || this.closed) return total;
    }
  }

  private async purgeLogged(): Promise<void> {
    try {
      const deleted = await this.purge();
      if (deleted > 0) this.logger.debug(`Deleted ${deleted} inbox row(s) older than ${this.settings.retentionMs} ms`);
    } catch (error) {
      this.logger.warn(
        `The inbox retention job failed; it runs again in ${this.settings.intervalMs} ms: ${(error as Error)?.message ?? String(error)}`,
      );
    }
  }
}

import { randomUUID } from 'node:crypto';
import { Client, Pool } from 'pg';
import { log, sleep } from '../services';
import { PG_CONNECTION, RELAY_BATCH, RELAY_LEASE_MS, RELAY_POOL_SIZE } from './outbox-pipeline';
import type { LeasedRow, OutboxTables } from './outbox-tables';

/** Longest the relay sleeps without a notification before it looks at the outbox anyway. */
const IDLE_POLL_MS = 1000;
/** Pause after a failed publish before the next lease. */
const RETRY_PAUSE_MS = 100;
/** Pause before trying the waiting lock again while writers commit without a NOTIFY (their rows come any moment). */
const WRITERS_COMMITTING_RETRY_MS = 10;

/**
 * The relay of the bench's own outbox, the loop of @mmmq/postgres's `OutboxRelay`: leases a batch of
 * {@link RELAY_BATCH} rows (`FOR UPDATE SKIP LOCKED`), hands them to `publish` (which resolves once the broker
 * confirmed every one), marks them PUBLISHED, and leases the next batch at once while rounds find rows (writers do
 * not NOTIFY a busy relay); after an empty round it takes the tables' waiting lock on its LISTEN connection (writers
 * NOTIFY from then on), looks once more and sleeps until the NOTIFY (at once if one came meanwhile, at most
 * {@link IDLE_POLL_MS}). A failed publish marks the batch AMBIGUOUS: it is published again, with the same ids. One
 * pool of {@link RELAY_POOL_SIZE} for the leases and marks, and a LISTEN connection of its own.
 */
export class PollingRelay {
  private readonly pool = new Pool({ ...PG_CONNECTION, max: RELAY_POOL_SIZE });
  private readonly owner = `bench-relay-${randomUUID()}`;
  private readonly listener = new Client(PG_CONNECTION);
  private loop?: Promise<void>;
  private closed = false;
  private notified = false;
  private holdingLock = false;
  private wake?: () => void;

  constructor(
    private readonly tables: OutboxTables,
    private readonly publish: (rows: LeasedRow[]) => Promise<void>,
  ) {
    this.pool.on('error', (error) => log(`outbox relay pool: ${error.message}`));
    this.listener.on('error', (error) => log(`outbox relay LISTEN connection: ${error.message}`));
  }

  async start(): Promise<void> {
    await this.listener.connect();
    this.listener.on('notification', () => {
      this.notified = true;
      this.wake?.();
    });
    await this.listener.query(`LISTEN "${this.tables.channel}"`);
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      let rows: LeasedRow[] = [];
      try {
        // Woken by a NOTIFY: give the lock back before the round, so that the commits meanwhile need not NOTIFY.
        if (this.notified && this.holdingLock) {
          this.holdingLock = false;
          await this.listener.query(`SELECT pg_advisory_unlock(${this.tables.waitingLock})`);
        }
        this.notified = false;
        rows = await this.tables.lease(this.pool, this.owner, RELAY_BATCH, RELAY_LEASE_MS);
        if (rows.length > 0) {
          await this.publish(rows);
          await this.tables.markPublished(
            this.pool,
            this.owner,
            rows.map((row) => row.messageId),
          );
        }
        if (rows.length > 0) {
          // Busy: writers need not NOTIFY, the next round comes at once.
          if (this.holdingLock) await this.listener.query(`SELECT pg_advisory_unlock(${this.tables.waitingLock})`);
          this.holdingLock = false;
        } else if (!this.holdingLock) {
          const { rows: lock } = await this.listener.query<{ got: boolean }>(
            `SELECT pg_try_advisory_lock(${this.tables.waitingLock}) AS got`,
          );
          this.holdingLock = lock[0].got;
          // Taken: rows committed before it got no NOTIFY, so look once more. Not taken: writers are committing.
          if (!this.holdingLock) await sleep(WRITERS_COMMITTING_RETRY_MS);
        } else await this.idle();
      } catch (error) {
        if (this.closed) return;
        log(`outbox relay: ${(error as Error).message}`);
        const ids = rows.map((row) => row.messageId);
        if (ids.length) await this.tables.markAmbiguous(this.pool, this.owner, ids).catch(() => undefined);
        await sleep(RETRY_PAUSE_MS);
      }
    }
  }

  /** Until a notification (or one came since the last lease began), the idle poll, or close. */
  private async idle(): Promise<void> {
    if (this.notified || this.closed) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      timer = setTimeout(resolve, IDLE_POLL_MS);
    });
    clearTimeout(timer);
    this.wake = undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.wake?.();
    await this.loop?.catch(() => undefined);
    await this.listener.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }
}

import { setTimeout as delay } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { Client, type PoolConfig } from 'pg';

/**
 * How {@link OutboxListener.wait} went: the lock was just taken (look at the table once more), was held already,
 * is another relay's, or writers are committing; or there is no LISTEN connection.
 */
export type WaitRegistration = 'acquired' | 'waiting' | 'other-relay-waiting' | 'writers-committing' | 'not-listening';

/** The first key of the advisory lock a sleeping relay holds (migrations/0003_outbox_notify_waiting.sql). */
const WAITING_LOCK_CLASS = `hashtext('mmmq_outbox')`;

/**
 * A dedicated connection that LISTENs on the outbox channel and calls `wake` on every notification. When the
 * connection fails it reconnects after `reconnectDelayMs`, and calls `wake` once reconnected: notifications sent
 * while it was down are lost, so the relay looks at the table instead. It also holds the advisory lock that makes
 * writers NOTIFY ({@link wait}) while the relay sleeps: writers that see no relay waiting do not NOTIFY, because a
 * NOTIFY serialises their commits.
 */
export class OutboxListener {
  private client?: Client;
  /** The client holds the waiting lock (a session lock: it goes with the connection). */
  private holding = false;
  private readonly closing = new AbortController();
  private connecting?: Promise<void>;

  constructor(
    private readonly connection: PoolConfig,
    private readonly channel: string,
    private readonly reconnectDelayMs: number,
    private readonly wake: () => void,
    private readonly logger: Logger,
  ) {}

  /** Resolves once listening, or after the first failure (then it keeps trying in the background). */
  start(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.connecting = this.connect(resolve);
    });
  }

  /** `attempted` is called after the first attempt, whatever its outcome: a database that is down must not block start-up. */
  private async connect(attempted: () => void = () => undefined): Promise<void> {
    try {
      await this.connectUntilListening(attempted);
    } finally {
      attempted();
    }
  }

  private async connectUntilListening(attempted: () => void): Promise<void> {
    while (!this.closing.signal.aborted) {
      const client = new Client(this.connection);
      client.on('notification', () => this.wake());
      client.on('error', (error) => this.lost(client, error));
      client.on('end', () => this.lost(client, new Error('the connection ended')));
      try {
        await client.connect();
        await client.query(`LISTEN "${this.channel}"`);
        if (this.closing.signal.aborted) {
          await client.end().catch(() => undefined);
          return;
        }
        this.client = client;
        this.wake();
        return;
      } catch (error) {
        client.removeAllListeners('end');
        await client.end().catch(() => undefined);
        this.logger.warn(`Cannot LISTEN on ${this.channel}: ${(error as Error).message}; retrying in ${this.reconnectDelayMs} ms`);
        attempted();
        await delay(this.reconnectDelayMs, undefined, { signal: this.closing.signal }).catch(() => undefined);
      }
    }
  }

  /**
   * Takes the waiting lock, so that writers NOTIFY from now on; the relay must then look at the table once more
   * before it sleeps. The lock is free only when no writer is committing without a NOTIFY, so that look sees every
   * row of a writer that did not NOTIFY. It is not taken when another relay holds it (that one is woken, and this
   * one too: LISTEN gets every notification) or while writers commit (look again shortly), nor without a connection.
   */
  async wait(): Promise<WaitRegistration> {
    const client = this.client;
    if (client === undefined) return 'not-listening';
    if (this.holding) return 'waiting';
    try {
      const { rows } = await client.query<{ registration: WaitRegistration }>(
        `SELECT CASE WHEN pg_try_advisory_lock(${WAITING_LOCK_CLASS}, hashtext($1)) THEN 'acquired' ` +
          "WHEN EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND mode = 'ExclusiveLock' AND granted " +
          `AND classid = ${WAITING_LOCK_CLASS}::oid AND objid = hashtext($1)::oid) THEN 'other-relay-waiting' ` +
          "ELSE 'writers-committing' END AS registration",
        [this.channel],
      );
      const registration = rows[0].registration;
      if (registration === 'acquired') this.holding = this.client === client;
      return registration;
    } catch {
      return 'not-listening';
    }
  }

  /** Gives the waiting lock back: the relay is busy and looks at the table after every round, writers need not NOTIFY. */
  async busy(): Promise<void> {
    const client = this.client;
    if (!this.holding || client === undefined) return;
    this.holding = false;
    await client.query(`SELECT pg_advisory_unlock(${WAITING_LOCK_CLASS}, hashtext($1))`, [this.channel]).catch(() => undefined);
  }

  private lost(client: Client, error: Error): void {
    if (this.client !== client || this.closing.signal.aborted) return;
    this.client = undefined;
    this.holding = false;
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    this.logger.warn(`The LISTEN connection on ${this.channel} failed: ${error.message}; reconnecting in ${this.reconnectDelayMs} ms`);
    this.connecting = delay(this.reconnectDelayMs, undefined, { signal: this.closing.signal })
      .then(() => this.connect())
      .catch(() => undefined);
  }

  /** Stops reconnecting and closes the connection. Idempotent. */
  async close(): Promise<void> {
    this.closing.abort();
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    this.holding = false;
    if (client !== undefined) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
  }
}
